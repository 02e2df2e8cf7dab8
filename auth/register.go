package auth

import (
	"fmt"
	"net/http"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/registry"
)

// PermissionDenied is the error code of a call by a user who may not do what it asks, such as
// create-user by a user who is not an administrator. Attribute: path (the function). HTTP
// status 403.
const PermissionDenied apierr.Code = "PERMISSION-DENIED"

// Register registers the identity functions in reg, at the registry's default version:
//
//   - login(user, password): public; answers a session ID and sets the session cookie.
//   - logout(): needs a session; ends it.
//   - create-api-key(name): needs a session; answers the new key, the only time it is shown.
//   - list-api-keys(): the caller's keys: name, created, last_used; never the key.
//   - revoke-api-key(name): revokes one of the caller's keys.
//   - list-users(): every user: user, admin, created.
//   - create-user(user, password, [admin]): administrators only.
//   - delete-user(user): administrators only; ends the user's sessions and keys at once.
//   - change-password(old, new): the caller's own password; ends the caller's other sessions.
//   - whoami(): any token; the caller's user, admin, token kind (session or key), key name
//     and session expiry (see [Whoami]), from the version WithWhoamiSince sets.
func (a *Authenticator) Register(reg *registry.Registry) error {
	denied := registry.Errors(PermissionDenied)
	funcs := []struct {
		name string
		fn   any
		opts []registry.Option
	}{
		{"login", a.login, []registry.Option{registry.Requires(registry.Public), registry.NoStore(),
			registry.Describe("Logs in: answers a session ID (also set as the session cookie) valid until logout, the idle timeout or the maximum lifetime.")}},
		{"logout", a.logout, []registry.Option{registry.Requires(registry.Session),
			registry.Describe("Ends the session the call carries.")}},
		{"create-api-key", a.createKey, []registry.Option{registry.Requires(registry.Session), registry.NoStore(),
			registry.Describe("Creates an API key for the caller and answers it. It is shown only this once; it is valid until revoked.")}},
		{"list-api-keys", a.listKeys, []registry.Option{registry.ReadOnly(),
			registry.Describe("Lists the caller's API keys: name, creation and last use. Never the keys themselves.")}},
		{"revoke-api-key", a.revokeKey, []registry.Option{
			registry.Describe("Revokes one of the caller's API keys, by name. It stops working at once.")}},
		{"list-users", a.listUsers, []registry.Option{registry.ReadOnly(),
			registry.Describe("Lists the users: name, administrator or not, creation.")}},
		{"create-user", a.createUser, []registry.Option{denied,
			registry.Describe("Creates a user. Administrators only.")}},
		{"delete-user", a.deleteUser, []registry.Option{denied,
			registry.Describe("Deletes a user, ending its sessions and API keys at once. Administrators only; nobody deletes themselves.")}},
		{"change-password", a.changePassword, []registry.Option{
			registry.Describe("Changes the caller's password, given the current one. Ends the caller's other sessions; API keys stay valid.")}},
		{"whoami", a.whoami, append([]registry.Option{registry.ReadOnly(),
			registry.Describe("Answers who the caller is: user, administrator or not, the kind of token (session or key), the key's name, and when a session ends.")},
			a.whoamiSince()...)},
	}
	for _, f := range funcs {
		if err := reg.Register(f.name, f.fn, f.opts...); err != nil {
			return fmt.Errorf("auth: %w", err)
		}
	}
	return nil
}

// whoamiSince is the option that sets whoami's version, if one was given.
func (a *Authenticator) whoamiSince() []registry.Option {
	if a.whoamiV == "" {
		return nil
	}
	return []registry.Option{registry.Since(a.whoamiV)}
}

// MustRegister is like Register but panics on an error.
func (a *Authenticator) MustRegister(reg *registry.Registry) {
	if err := a.Register(reg); err != nil {
		panic(err)
	}
}

func denied(name string) error {
	return apierr.New(PermissionDenied, "path", name).WithStatus(http.StatusForbidden)
}
