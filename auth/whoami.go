package auth

import (
	"context"
	"time"
)

// Whoami is the answer of whoami: who the caller is and with which token, so that a client
// (a web UI) shows what the caller may do without probing functions for PERMISSION-DENIED.
type Whoami struct {
	// User is the caller's user name.
	User string `json:"user" jsonschema:"description=The caller's user name."`
	// Role is the user's role: read-only, user or administrator.
	Role Role `json:"role" jsonschema:"enum=read-only,enum=user,enum=administrator,description=The user's role: what the caller may call."`
	// Admin reports that Role is RoleAdmin.
	Admin bool `json:"admin" jsonschema:"description=Whether the user is an administrator (may create and delete users)."`
	// Token is the kind of token the call carried: "session" or "key".
	Token string `json:"token" jsonschema:"enum=session,enum=key,description=The kind of token the call carried: session (login) or key (create-api-key)."`
	// KeyName is the name of the API key the call carried; empty for a session.
	KeyName string `json:"key_name,omitempty" jsonschema:"description=The name of the API key the call carried; absent for a session."`
	// Expires is when the session ends if it is not used again: its idle timeout from now, or
	// its maximum lifetime, whichever comes first. Nil for an API key, valid until revoked.
	Expires *time.Time `json:"expires,omitempty" jsonschema:"description=For a session: when it ends if not used again (the idle timeout from now or the maximum lifetime whichever comes first). Absent for an API key."`
	// Ends is when the session ends however it is used: its maximum lifetime. Nil for an API key.
	Ends *time.Time `json:"ends,omitempty" jsonschema:"description=For a session: when it ends however it is used (its maximum lifetime). Absent for an API key."`
}

// whoami answers the caller's identity and token.
func (a *Authenticator) whoami(ctx context.Context) (Whoami, error) {
	id, err := identity(ctx)
	if err != nil {
		return Whoami{}, err
	}
	w := Whoami{User: id.User, Role: id.Role, Admin: id.Admin, Token: "key", KeyName: id.KeyName}
	if id.Session {
		w.Token = "session"
		now := a.now().UTC()
		ends := time.Unix(0, id.created).UTC().Add(time.Duration(a.max.Load()))
		expires := now.Add(time.Duration(a.idle.Load()))
		if ends.Before(expires) {
			expires = ends
		}
		w.Expires, w.Ends = &expires, &ends
	}
	return w, nil
}
