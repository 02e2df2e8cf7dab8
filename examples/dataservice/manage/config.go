package manage

import (
	"context"
	"encoding/json"

	"github.com/fnapi/fnapi/examples/dataservice/api"
)

type setConfigArgs = api.SetConfigArgs

func (s *service) getConfig() map[string]json.RawMessage {
	return s.settings.Values()
}

func (s *service) setConfig(ctx context.Context, in setConfigArgs) (map[string]json.RawMessage, error) {
	out, err := s.settings.Set(ctx, in.Values)
	if err != nil {
		return nil, storeError(err)
	}
	return out, nil
}
