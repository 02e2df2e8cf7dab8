package manage

import (
	"context"
	"encoding/json"

	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/wire"
)

func (s *service) getConfig() map[string]json.RawMessage {
	return s.settings.Values()
}

func (s *service) setConfig(ctx context.Context, in api.SetConfigArgs) (map[string]json.RawMessage, error) {
	out, err := s.settings.Set(ctx, in.Values)
	if err != nil {
		return nil, wire.StoreError(err)
	}
	return out, nil
}
