package manage

import (
	"context"
	"encoding/json"
	"net"
	"time"

	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/registry"
	"go.uber.org/zap"
)

// Audited lists the functions whose successful calls the audit trail records (every change of
// configuration, users and API keys), each with the arguments it records. Passwords and
// tokens are never among them.
var Audited = map[string][]string{
	"set-config":      {"values"},
	"create-user":     {"user", "role", "admin"},
	"set-role":        {"user", "role"},
	"delete-user":     {"user"},
	"change-password": {},
	"create-api-key":  {"name"},
	"revoke-api-key":  {"name", "user"},
}

// Bounds of list-audit.
const (
	// DefaultAuditLimit is how many events list-audit answers when the call gives no limit.
	DefaultAuditLimit = 100
	// MaxAuditLimit is the most events one list-audit call answers.
	MaxAuditLimit = 1000
)

// AuditInterceptor returns the interceptor that writes each successful call of an Audited
// function to the audit trail of st: who (the caller's user and key name), from where (the
// client's IP address), what (the function and its recorded arguments) and when. Put it after
// the authentication interceptor. A change whose event cannot be written stays made; the
// failure is logged as an error.
func AuditInterceptor(st state.Store, log *zap.Logger) registry.Interceptor {
	return func(next registry.Handler) registry.Handler {
		return func(ctx context.Context, c *registry.Call) (any, error) {
			res, err := next(ctx, c)
			args, ok := Audited[c.Func.Name]
			if err != nil || !ok {
				return res, err
			}
			id, _ := c.Identity.(*auth.Identity)
			if id == nil {
				return res, err
			}
			details := map[string]json.RawMessage{}
			for _, name := range args {
				if v, ok := c.Args[name]; ok {
					details[name] = v
				}
			}
			d, _ := json.Marshal(details) // raw values are valid JSON: the transport checked them
			e := state.AuditEvent{User: id.User, Key: id.KeyName, Address: address(c.RemoteAddr), Action: c.Func.Name, Details: d}
			wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			if aerr := st.AppendAudit(wctx, e); aerr != nil {
				log.Error("audit trail: an event was not written", zap.String("action", e.Action),
					zap.String("user", e.User), zap.Error(aerr))
			}
			return res, err
		}
	}
}

// address is the IP address of a remote address.
func address(remote string) string {
	if host, _, err := net.SplitHostPort(remote); err == nil {
		return host
	}
	return remote
}

type listAuditArgs = api.ListAuditArgs

// listAudit is the list-audit function.
func (s *service) listAudit(ctx context.Context, in listAuditArgs) ([]state.AuditEvent, error) {
	if in.Limit == 0 {
		in.Limit = DefaultAuditLimit
	}
	es, err := s.store.Audit(ctx, in.Since, min(in.Limit, MaxAuditLimit))
	if err != nil {
		return nil, err
	}
	if es == nil {
		es = []state.AuditEvent{}
	}
	return es, nil
}
