package auth

import (
	"context"
	"time"

	"github.com/fnapi/fnapi/auth/authapi"
)

// Whoami is the answer of whoami: who the caller is and with which token, so that a client
// (a web UI) shows what the caller may do without probing functions for PERMISSION-DENIED.
type Whoami = authapi.WhoamiResult

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
