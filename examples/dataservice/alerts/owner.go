package alerts

import (
	"context"
	"net/url"
	"strings"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/wire"
	"github.com/fnapi/fnapi/registry"
)

// mayChange reports whether the caller of ctx may change r (update, delete, silence) and see
// its webhooks: its owner, the user who created it, and administrators. A rule without an
// owner only administrators change.
func mayChange(ctx context.Context, r state.AlertRule) bool {
	id := auth.FromContext(ctx)
	return id != nil && (id.Role == authapi.RoleAdmin || r.Owner != "" && id.User == r.Owner)
}

// denied is the error of a call on a rule the caller may not change: another user's rule
// needs an administrator.
func denied(ctx context.Context) error {
	fn := ""
	if c := registry.CallFrom(ctx); c != nil && c.Func != nil { // nil: the service's own call (CreateRule)
		fn = c.Func.Name
	}
	return apierr.New(apierr.PermissionDenied, "path", fn, "role", string(authapi.RoleAdmin))
}

// owned refuses with PERMISSION-DENIED a rule the caller may not change, NOT-FOUND a rule
// that does not exist. A rule's owner never changes, so the answer holds for the write that
// follows. For the functions that change a rule (delete-alert-rule, silence-alert).
func (s *Service) owned(ctx context.Context, id string) error {
	r, err := s.store.Rule(ctx, id)
	if err != nil {
		return wire.StoreError(err)
	}
	if !mayChange(ctx, r) {
		return denied(ctx)
	}
	return nil
}

// redacted is what stands for the path and query of a webhook URL shown to a caller who may
// not change its rule.
const redacted = "…"

// redact returns a webhook URL as shown to a caller who may not change its rule: its scheme
// and host, the path and query, where Slack, Teams and Discord keep their tokens, replaced by
// redacted ("https://hooks.slack.com/…").
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return redacted
	}
	return u.Scheme + "://" + u.Host + "/" + redacted
}

// redactError removes the webhook URL target from a delivery's error, as errors stored
// before the sender left it out held it.
func redactError(text, target string) string {
	if target == "" {
		return text
	}
	return strings.ReplaceAll(text, target, redact(target))
}
