package auth

import (
	"context"
	"strconv"
	"time"

	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/registry"
)

// Identity is who made a call, as the Authenticator's interceptor sets it in
// registry.Call.Identity for every call of a function that needs a token.
type Identity struct {
	// User is the user name.
	User string `json:"user"`
	// Role is the user's role, as it was when the token was last checked against the store
	// (within the cache TTL).
	Role authapi.Role `json:"role"`
	// Admin reports that Role is authapi.RoleAdmin.
	Admin bool `json:"admin"`
	// Session reports that the call carried a session ID; otherwise it carried an API key.
	Session bool `json:"session"`
	// KeyName is the name of the API key the call carried; empty for a session.
	KeyName string `json:"key_name,omitempty"`

	created int64 // the token's creation, unix nanoseconds
	since   int64 // the user's creation, unix nanoseconds
}

// UserCreated returns when the caller's user was created: a user deleted and created again
// under the same name is another user, whose records (quotas counted from the audit trail)
// start at that time.
func (id *Identity) UserCreated() time.Time { return time.Unix(0, id.since) }

// unixNano is t in unix nanoseconds; 0 for the zero time (a user stored without its creation).
func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// String returns the user name: what the per-call log line shows of the caller (never a token).
func (id *Identity) String() string { return id.User }

// FromContext returns the identity of the call ctx belongs to, or nil for an anonymous call
// (public functions are called without one).
func FromContext(ctx context.Context) *Identity {
	if c := registry.CallFrom(ctx); c != nil {
		id, _ := c.Identity.(*Identity)
		return id
	}
	return nil
}

// IdempotencyScope names the caller for the answers the transport keeps by Idempotency-Key:
// the user, when it was created and its role. A user deleted and created again under the same
// name is another user, who never gets the answers of the first; a user whose role changed
// runs a repeated call again, checked against the new role, rather than get an answer that
// the old role allowed.
func (id *Identity) IdempotencyScope() string {
	return id.User + "\x00" + strconv.FormatInt(id.since, 10) + "\x00" + string(id.Role)
}
