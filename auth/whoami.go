package auth

import (
	"context"
	"time"

	"github.com/fnapi/fnapi/auth/authapi"
)

// whoami answers the caller's identity and token.
func (a *Authenticator) whoami(ctx context.Context) (authapi.WhoamiResult, error) {
	id, err := identity(ctx)
	if err != nil {
		return authapi.WhoamiResult{}, err
	}
	w := authapi.WhoamiResult{User: id.User, Role: id.Role, Admin: id.Admin, Token: "key", KeyName: id.KeyName}
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
