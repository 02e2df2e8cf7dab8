package authapi

import (
	"time"

	"github.com/fnapi/fnapi/decl"
)

// The identity functions, as package auth registers them; see auth.Register for the role each
// needs (read-only users may call logout, their own keys and password; administrators alone
// the users).
var (
	Login = decl.Func[LoginArgs, string]("login", decl.Requires(decl.Public),
		decl.Describe("Logs in: answers a session ID (also set as the session cookie) valid until logout, the idle timeout or the maximum lifetime."))
	Logout = decl.Func[decl.None, bool]("logout", decl.Requires(decl.Session),
		decl.Describe("Ends the session the call carries."))
	CreateAPIKey = decl.Func[KeyArgs, string]("create-api-key", decl.Requires(decl.Session),
		decl.Describe("Creates an API key for the caller and answers it. It is shown only this once; it is valid until revoked."))
	ListAPIKeys = decl.Func[ListKeysArgs, []KeyInfo]("list-api-keys",
		decl.Describe("Lists the caller's API keys, or with user another user's (administrators only): name, creation and last use. Never the keys themselves."))
	RevokeAPIKey = decl.Func[RevokeArgs, bool]("revoke-api-key",
		decl.Describe("Revokes one of the caller's API keys, or with user another user's (administrators only), by name. It stops working at once."))
	ListUsers = decl.Func[decl.None, []UserInfo]("list-users",
		decl.Describe("Lists the users: name, role, administrator or not, creation. Administrators only."))
	CreateUser = decl.Func[CreateUserArgs, UserInfo]("create-user",
		decl.Describe("Creates a user with a role: read-only, user (the default) or administrator. Administrators only."))
	SetRole = decl.Func[RoleArgs, UserInfo]("set-role",
		decl.Describe("Changes a user's role (read-only, user or administrator) and answers the user; it applies to the user's sessions and API keys at once. Administrators only; nobody changes their own role."))
	DeleteUser = decl.Func[UserArgs, bool]("delete-user",
		decl.Describe("Deletes a user, ending its sessions and API keys at once. Administrators only; nobody deletes themselves."))
	ChangePassword = decl.Func[PasswordArgs, bool]("change-password",
		decl.Describe("Changes the caller's password, given the current one. Ends the caller's other sessions; API keys stay valid."))
	Whoami = decl.Func[decl.None, WhoamiResult]("whoami",
		decl.Describe("Answers who the caller is: user, role, administrator or not, the kind of token (session or key), the key's name, and when a session ends."))
)

// LoginArgs are the arguments of login.
type LoginArgs struct {
	User     string `json:"user" jsonschema:"maxLength=64,description=The user name."`
	Password string `json:"password" jsonschema:"maxLength=1024,description=The password."`
}

// KeyArgs are the arguments of create-api-key.
type KeyArgs struct {
	Name string `json:"name" jsonschema:"minLength=1,maxLength=64,description=The key's name: unique among the caller's keys."`
}

// ListKeysArgs are the arguments of list-api-keys.
type ListKeysArgs struct {
	User string `json:"user,omitempty" jsonschema:"maxLength=64,description=Another user whose keys to list (administrators only); default the caller."`
}

// RevokeArgs are the arguments of revoke-api-key.
type RevokeArgs struct {
	Name string `json:"name" jsonschema:"minLength=1,maxLength=64,description=The key's name."`
	User string `json:"user,omitempty" jsonschema:"maxLength=64,description=Another user whose key to revoke (administrators only); default the caller."`
}

// KeyInfo describes an API key, as list-api-keys answers it. It never holds the key.
type KeyInfo struct {
	// Name is the key's name, unique among the user's keys.
	Name string `json:"name"`
	// Created is when the key was made.
	Created time.Time `json:"created"`
	// LastUsed is when the key was last used; null when never. It may lag by the flush interval
	// when the key is used through another server.
	LastUsed *time.Time `json:"last_used"`
}

// CreateUserArgs are the arguments of create-user.
type CreateUserArgs struct {
	User     string `json:"user" jsonschema:"pattern=^[A-Za-z0-9][A-Za-z0-9._@-]{0\\,63}$,description=The new user's name."`
	Password string `json:"password" jsonschema:"minLength=8,maxLength=1024,description=The new user's password."`
	Role     Role   `json:"role,omitempty" jsonschema:"enum=read-only,enum=user,enum=administrator,description=The new user's role: read-only\\, user (the default) or administrator."`
	Admin    bool   `json:"admin,omitempty" jsonschema:"description=Makes the user an administrator; the same as role administrator (kept for older clients)."`
}

// RoleArgs are the arguments of set-role.
type RoleArgs struct {
	User string `json:"user" jsonschema:"maxLength=64,description=The user's name."`
	Role Role   `json:"role" jsonschema:"enum=read-only,enum=user,enum=administrator,description=The user's new role."`
}

// UserArgs are the arguments of delete-user.
type UserArgs struct {
	User string `json:"user" jsonschema:"maxLength=64,description=The user's name."`
}

// PasswordArgs are the arguments of change-password.
type PasswordArgs struct {
	Old string `json:"old" jsonschema:"maxLength=1024,description=The current password."`
	New string `json:"new" jsonschema:"minLength=8,maxLength=1024,description=The new password."`
}

// UserInfo describes a user, as list-users, create-user and set-role answer it.
type UserInfo struct {
	// User is the user name.
	User string `json:"user"`
	// Role is the user's role.
	Role Role `json:"role"`
	// Admin reports that Role is RoleAdmin (kept for clients that read only this).
	Admin bool `json:"admin"`
	// Created is when the account was made.
	Created time.Time `json:"created"`
}

// WhoamiResult is the answer of whoami.
type WhoamiResult struct {
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
