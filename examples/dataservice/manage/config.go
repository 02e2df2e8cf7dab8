package manage

import (
	"context"
	"encoding/json"
)

type setConfigArgs struct {
	Values map[string]json.RawMessage `json:"values" jsonschema:"description=Keys and their new values; null resets a key to its default"`
}

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
