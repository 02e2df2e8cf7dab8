package auth

import (
	"context"

	"github.com/fnapi/fnapi/auth/authapi"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/registry"
)

// needs returns the role a call of f needs.
func needs(f *registry.Func) authapi.Role {
	if f.Role == "" {
		return authapi.RoleUser
	}
	return authapi.Role(f.Role)
}

// authorize refuses a call whose caller's role is below what the function needs.
func authorize(c *registry.Call, id *Identity) error {
	if need := needs(c.Func); !id.Role.Allows(need) {
		return denied(c.Func.Name, need)
	}
	return nil
}

// denied is the error of a call the caller's role does not allow.
func denied(fn string, need authapi.Role) error {
	return apierr.New(apierr.PermissionDenied, "path", fn, "role", string(need))
}

// requireAdmin refuses a call on another user's behalf unless the caller is an administrator.
func requireAdmin(ctx context.Context, id *Identity) error {
	if id.Role != authapi.RoleAdmin {
		return denied(callOf(ctx).Func.Name, authapi.RoleAdmin)
	}
	return nil
}

// storedRole is the role of a stored user; a store that does not know roles (authapi.Role empty)
// holds users.
func storedRole(u User) authapi.Role {
	if u.Role == "" {
		return authapi.RoleUser
	}
	return u.Role
}
