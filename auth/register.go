package auth

import (
	"fmt"
	"slices"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/registry"
)

// PermissionDenied is the error code of a call by a user whose role does not allow it; it is
// apierr.PermissionDenied, kept here for code written before it joined the catalogue.
const PermissionDenied = apierr.PermissionDenied

// FuncOption adds registration options to one of the identity functions that Register
// registers, by name: registry.Since for a function an API added after its first version.
type FuncOption struct {
	name string
	opts []registry.Option
}

// ForFunc returns a FuncOption that registers the function name with opts besides its own,
// e.g. ForFunc("set-role", registry.Since("1.2")).
func ForFunc(name string, opts ...registry.Option) FuncOption {
	return FuncOption{name: name, opts: opts}
}

type funcSpec struct {
	name string
	fn   any
	opts []registry.Option
}

// Register registers the identity functions in reg, at the registry's default version unless
// a FuncOption says otherwise, with the role each needs:
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
//     expiry (see [Whoami]). Read-only users too. An API that adds it after its first version
//     says so with ForFunc("whoami", registry.Since(...)).
func (a *Authenticator) Register(reg *registry.Registry, opts ...FuncOption) error {
	reader, admin := Requires(RoleReadOnly), Requires(RoleAdmin)
	funcs := []funcSpec{
		{"login", a.login, []registry.Option{registry.Requires(registry.Public), registry.NoStore(),
			registry.Describe("Logs in: answers a session ID (also set as the session cookie) valid until logout, the idle timeout or the maximum lifetime.")}},
		{"logout", a.logout, []registry.Option{registry.Requires(registry.Session), reader,
			registry.Describe("Ends the session the call carries.")}},
		{"create-api-key", a.createKey, []registry.Option{registry.Requires(registry.Session), reader, registry.NoStore(),
			registry.Describe("Creates an API key for the caller and answers it. It is shown only this once; it is valid until revoked.")}},
		{"list-api-keys", a.listKeys, []registry.Option{reader, registry.ReadOnly(),
			registry.Describe("Lists the caller's API keys, or with user another user's (administrators only): name, creation and last use. Never the keys themselves.")}},
		{"revoke-api-key", a.revokeKey, []registry.Option{reader,
			registry.Describe("Revokes one of the caller's API keys, or with user another user's (administrators only), by name. It stops working at once.")}},
		{"list-users", a.listUsers, []registry.Option{admin, registry.ReadOnly(),
			registry.Describe("Lists the users: name, role, administrator or not, creation. Administrators only.")}},
		{"create-user", a.createUser, []registry.Option{admin,
			registry.Describe("Creates a user with a role: read-only, user (the default) or administrator. Administrators only.")}},
		{"set-role", a.setRole, []registry.Option{admin,
			registry.Describe("Changes a user's role (read-only, user or administrator) and answers the user; it applies to the user's sessions and API keys at once. Administrators only; nobody changes their own role.")}},
		{"delete-user", a.deleteUser, []registry.Option{admin,
			registry.Describe("Deletes a user, ending its sessions and API keys at once. Administrators only; nobody deletes themselves.")}},
		{"change-password", a.changePassword, []registry.Option{reader,
			registry.Describe("Changes the caller's password, given the current one. Ends the caller's other sessions; API keys stay valid.")}},
		{"whoami", a.whoami, []registry.Option{reader, registry.ReadOnly(),
			registry.Describe("Answers who the caller is: user, role, administrator or not, the kind of token (session or key), the key's name, and when a session ends.")}},
	}
	for _, o := range opts {
		if !slices.ContainsFunc(funcs, func(f funcSpec) bool { return f.name == o.name }) {
			return fmt.Errorf("auth: ForFunc(%q): no such identity function", o.name)
		}
	}
	for _, f := range funcs {
		for _, o := range opts {
			if o.name == f.name {
				f.opts = append(f.opts, o.opts...)
			}
		}
		if err := reg.Register(f.name, f.fn, f.opts...); err != nil {
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
