package manage

import (
	"context"
	"encoding/json"
	"net"
	"sync/atomic"
	"time"

	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/wire"
	"github.com/fnapi/fnapi/registry"
	"go.uber.org/zap"
)

// Audited lists the functions whose successful calls the audit trail records (every change of
// configuration, users, API keys, dashboards and widgets), each with the arguments it
// records. Passwords and tokens are never among them, nor queries and options (bounded by
// the store's quotas, not by the trail's).
var Audited = map[string][]string{
	"create-dashboard": {"title"},
	"update-dashboard": {"id", "title"},
	"delete-dashboard": {"id"},
	"create-widget":    {"dashboard", "title", "kind"},
	"update-widget":    {"id", "dashboard", "title", "kind"},
	"delete-widget":    {"id"},
	"set-config":       {"values"},
	"create-user":      {"user", "role", "admin"},
	"set-role":         {"user", "role"},
	"delete-user":      {"user"},
	"change-password":  {},
	"create-api-key":   {"name"},
	"revoke-api-key":   {"name", "user"},
	// API 1.3: the operator's zones and applications.
	"set-zone":           {"name", "networks"},
	"delete-zone":        {"name"},
	"set-application":    {"name", "rules"},
	"delete-application": {"name"},
	// Alerts (package alerts): never the channels, whose secrets the trail must not hold.
	"create-alert-rule": {"name", "severity"},
	"update-alert-rule": {"id", "name", "severity"},
	"delete-alert-rule": {"id"},
	"silence-alert":     {"rule", "group", "until"},
	"acknowledge-alert": {"rule", "group"},
}

// Security lists the audited functions of security self-service, never refused by the quota
// of the trail: changing one's password, revoking a key, and an administrator deleting a user
// (logout is not audited). Their events are always written; past the caller's quota each takes
// the place of that user's oldest event of the same action (state.Store.AppendAuditBounded),
// so that the trail stays bounded and keeps the latest of them, while the rest of the user's
// trail stays.
var Security = map[string]bool{"change-password": true, "revoke-api-key": true, "delete-user": true}

// Bounds of list-audit.
const (
	// DefaultAuditLimit is how many events list-audit answers when the call gives no limit.
	DefaultAuditLimit = 100
	// MaxAuditLimit is the most events one list-audit call answers.
	MaxAuditLimit = 1000
)

// pruneEvery is how often the audit interceptor deletes the events older than the
// retention: at most once a minute per process, so that the trail's write path stays one
// insert.
const pruneEvery = time.Minute

// AuditOption configures AuditInterceptor.
type AuditOption func(*auditor)

// WithAuditRetention makes the interceptor keep events for retention(), read at each
// pruning (Settings.AuditRetention, so that set-config's audit_retention applies at once).
// Default: the built-in default of audit_retention, 365 days.
func WithAuditRetention(retention func() time.Duration) AuditOption {
	return func(a *auditor) { a.retention = retention }
}

type auditor struct {
	st        state.Store
	log       *zap.Logger
	retention func() time.Duration
	pruned    atomic.Int64 // when the trail was last pruned, unix nanoseconds
}

// AuditInterceptor returns the interceptor that writes each successful call of an Audited
// function to the audit trail of st: who (the caller's user and key name), from where (the
// client's IP address), what (the function and its recorded arguments) and when. Put it after
// the authentication interceptor. A change whose event cannot be written stays made; the
// failure is logged as an error.
//
// The trail cannot be erased by those it records: events go by age alone (older than
// audit_retention; see WithAuditRetention), and a caller whose events fill its quota in the
// trail (state.Limits.AuditPerActor) gets LIMIT-REACHED for every audited function but those
// of Security (whose events past the quota replace older ones of their own action), before
// the function runs, until its oldest events age out. The quota counts the events of the
// caller's user made since that user was created: a user deleted and created again under the
// same name starts afresh, and the old user's events stay. Calls that run at once may each
// pass the check, so the quota may be exceeded by as many calls as run at once. Probes
// (registry.Call.Probe: an MCP client listing its tools) call nothing: neither checked nor
// written.
func AuditInterceptor(st state.Store, log *zap.Logger, opts ...AuditOption) registry.Interceptor {
	a := &auditor{st: st, log: log, retention: func() time.Duration { return defaultAuditRetention }}
	for _, o := range opts {
		o(a)
	}
	return a.intercept
}

// defaultAuditRetention is audit_retention's built-in default.
var defaultAuditRetention = func() time.Duration {
	for _, k := range Keys() {
		if k.Name == KeyAuditRetention {
			d, _ := k.parseString(k.Default)
			return time.Duration(d)
		}
	}
	panic("manage: no audit_retention key")
}()

func (a *auditor) intercept(next registry.Handler) registry.Handler {
	return func(ctx context.Context, c *registry.Call) (any, error) {
		args, audited := Audited[c.Func.Name]
		id, _ := c.Identity.(*auth.Identity)
		if !audited || id == nil || c.Probe() {
			return next(ctx, c)
		}
		security := Security[c.Func.Name]
		if !security {
			if err := a.st.AuditQuota(ctx, id.User, id.UserCreated()); err != nil {
				return nil, wire.StoreError(err)
			}
		}
		res, err := next(ctx, c)
		if err != nil {
			return res, err
		}
		details := map[string]json.RawMessage{}
		for _, name := range args {
			if v, ok := c.Args[name]; ok {
				if c.Func.Name == "set-config" && name == "values" {
					v = RedactConfig(v) // SNMP secrets never reach the trail
				}
				details[name] = v
			}
		}
		d, _ := json.Marshal(details) // raw values are valid JSON: the transport checked them
		e := state.AuditEvent{User: id.User, Key: id.KeyName, Address: address(c.RemoteAddr()), Action: c.Func.Name, Details: d}
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		write := a.st.AppendAudit
		if security {
			write = func(ctx context.Context, e state.AuditEvent) error {
				return a.st.AppendAuditBounded(ctx, e, id.UserCreated())
			}
		}
		if aerr := write(wctx, e); aerr != nil {
			a.log.Error("audit trail: an event was not written", zap.String("action", e.Action),
				zap.String("user", e.User), zap.Error(aerr))
		}
		a.prune(wctx)
		return res, err
	}
}

// prune deletes the events older than the retention, when the last pruning is older than
// pruneEvery.
func (a *auditor) prune(ctx context.Context) {
	now := time.Now()
	last := a.pruned.Load()
	if now.UnixNano()-last < int64(pruneEvery) || !a.pruned.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	if _, err := a.st.PruneAudit(ctx, now.Add(-a.retention())); err != nil {
		a.log.Warn("audit trail: old events were not deleted", zap.Error(err))
	}
}

// address is the IP address of a remote address.
func address(remote string) string {
	if host, _, err := net.SplitHostPort(remote); err == nil {
		return host
	}
	return remote
}

// listAudit is the list-audit function.
func (s *service) listAudit(ctx context.Context, in api.ListAuditArgs) ([]api.AuditEvent, error) {
	if in.Limit == 0 {
		in.Limit = DefaultAuditLimit
	}
	es, err := s.store.Audit(ctx, state.AuditQuery{Since: in.Since, Before: in.Before, Limit: min(in.Limit, MaxAuditLimit)})
	if err != nil {
		return nil, wire.StoreError(err)
	}
	out := make([]api.AuditEvent, len(es)) // [] rather than null without events
	for i, e := range es {
		out[i] = api.AuditEvent(e)
	}
	return out, nil
}
