package alerts

import (
	"context"

	"github.com/fnapi/fnapi/examples/dataservice/api"
)

// CreateRule creates a rule as create-alert-rule does for the caller of ctx (a
// registry.Call carrying an auth.Identity, who owns the rule): for the rules the service
// makes itself, the demo's.
func (s *Service) CreateRule(ctx context.Context, in api.CreateAlertRuleArgs) (api.AlertRule, error) {
	return s.createRule(ctx, in)
}
