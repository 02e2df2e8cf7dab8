package auth

import (
	"context"
	"fmt"
	"slices"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/version"
)

// PermissionDenied is the declaration of the error code of a call by a user whose role does
// not allow it; it is apierr.PermissionDenied, kept here for code written before it joined the
// catalogue.
var PermissionDenied = apierr.PermissionDenied

// FuncOption adds registration options to one of the identity functions that Register
// registers, by name: registry.Since for a function an API added after its first version (its
// declaration in authapi is then implemented as With(decl.Since(v))), or a server-side option.
// Options that change what a declaration says otherwise (Requires, Errors, Describe) are
// refused.
type FuncOption struct {
	name string
	opts []registry.Option
}

// ForFunc returns a FuncOption that registers the function name with opts besides its own,
// e.g. ForFunc("set-role", registry.Since("1.2")).
func ForFunc(name string, opts ...registry.Option) FuncOption {
	return FuncOption{name: name, opts: opts}
}

// funcSpec is one identity function: its name and how to implement its declaration, moved to
// a later version by the decl options when the application asks (ForFunc with Since or Until).
type funcSpec struct {
	name      string
	implement func(reg *registry.Registry, d []decl.Option, opts []registry.Option) error
}

// spec returns the funcSpec that implements d with impl and options own (its role).
func spec[In, Out any](d decl.Function[In, Out], impl func(context.Context, In) (Out, error), own ...registry.Option) funcSpec {
	return funcSpec{d.Name(), func(reg *registry.Registry, later []decl.Option, opts []registry.Option) error {
		if len(later) > 0 {
			d = d.With(later...)
		}
		return registry.Implement(reg, d, impl, append(own, opts...)...)
	}}
}

// versions splits opts into the decl options that move a declaration (Since, Until) and the
// rest, which registry.Implement takes.
func versions(opts []registry.Option) ([]decl.Option, []registry.Option) {
	var moves []decl.Option
	var rest []registry.Option
	for _, o := range opts {
		unset := version.Version{Major: -1}
		probe := &registry.Func{Since: unset}
		if o(probe) != nil || (probe.Since == unset && probe.Until == nil) {
			rest = append(rest, o)
			continue
		}
		if probe.Since != unset {
			moves = append(moves, decl.Since(probe.Since.String()))
		}
		if probe.Until != nil {
			moves = append(moves, decl.Until(probe.Until.String()))
		}
	}
	return moves, rest
}

// Register implements the identity functions that package authapi declares in reg, from
// version 1.0 unless a FuncOption moves one (ForFunc with registry.Since or Until), with the
// role each needs:
//
//   - login(user, password): public; answers a session ID and sets the session cookie.
//   - logout(): needs a session; ends it. Read-only users too.
//   - create-api-key(name): needs a session; answers the new key, the only time it is shown.
//     Read-only users too: a key has exactly its user's rights.
//   - list-api-keys([user]): the caller's keys (another user's: administrators only): name,
//     created, last_used; never the key. Read-only users too.
//   - revoke-api-key(name, [user]): revokes one of the caller's keys (another user's:
//     administrators only). Read-only users too.
//   - change-password(old, new): the caller's own password; ends the caller's other sessions.
//     Read-only users too.
//   - list-users(): every user: user, role, admin, created. Administrators only.
//   - create-user(user, password, [role], [admin]): administrators only.
//   - set-role(user, role): administrators only; nobody changes their own role.
//   - delete-user(user): administrators only; ends the user's sessions and keys at once.
//   - whoami(): the caller's user, role, token kind (session or key), key name and session
//     expiry (see [authapi.WhoamiResult]). Read-only users too. An API that adds it after its first version
//     says so with ForFunc("whoami", registry.Since(...)).
func (a *Authenticator) Register(reg *registry.Registry, opts ...FuncOption) error {
	reader, admin := registry.Requires(authapi.RoleReadOnly), registry.Requires(authapi.RoleAdmin)
	logout := func(ctx context.Context, _ decl.None) (bool, error) { return a.logout(ctx) }
	listUsers := func(ctx context.Context, _ decl.None) ([]authapi.UserInfo, error) { return a.listUsers(ctx) }
	whoami := func(ctx context.Context, _ decl.None) (authapi.WhoamiResult, error) { return a.whoami(ctx) }
	funcs := []funcSpec{
		spec(authapi.Login, a.login, registry.NoStore()),
		spec(authapi.Logout, logout, reader),
		spec(authapi.CreateAPIKey, a.createKey, reader, registry.NoStore()),
		spec(authapi.ListAPIKeys, a.listKeys, reader, registry.ReadOnly()),
		spec(authapi.RevokeAPIKey, a.revokeKey, reader),
		spec(authapi.ListUsers, listUsers, admin, registry.ReadOnly()),
		spec(authapi.CreateUser, a.createUser, admin),
		spec(authapi.SetRole, a.setRole, admin),
		spec(authapi.DeleteUser, a.deleteUser, admin),
		spec(authapi.ChangePassword, a.changePassword, reader),
		spec(authapi.Whoami, whoami, reader, registry.ReadOnly()),
	}
	for _, o := range opts {
		if !slices.ContainsFunc(funcs, func(f funcSpec) bool { return f.name == o.name }) {
			return fmt.Errorf("auth: ForFunc(%q): no such identity function", o.name)
		}
	}
	for _, f := range funcs {
		var extra []registry.Option
		for _, o := range opts {
			if o.name == f.name {
				extra = append(extra, o.opts...)
			}
		}
		moves, rest := versions(extra)
		if err := f.implement(reg, moves, rest); err != nil {
			return fmt.Errorf("auth: %w", err)
		}
	}
	return nil
}

// MustRegister is like Register but panics on an error.
func (a *Authenticator) MustRegister(reg *registry.Registry, opts ...FuncOption) {
	if err := a.Register(reg, opts...); err != nil {
		panic(err)
	}
}
