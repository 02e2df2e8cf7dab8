package auth

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"github.com/fnapi/fnapi/auth/authapi"

	"github.com/fnapi/fnapi/apierr"
	"go.uber.org/zap"
)

// Password and user name rules, checked by the functions' schemas and by CreateUser.
const (
	minPasswordLen = 8
	maxPasswordLen = 1024
)

var userNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$`)

// invalidUser is the error of CreateUser for a name or password that breaks the rules; the
// create-user function answers it as INVALID-ARGUMENT naming the argument.
type invalidUser struct{ arg, reason string }

func (e *invalidUser) Error() string { return "auth: " + e.reason }

// CreateUser adds a user with a password and a role, as the create-user function does but
// without asking who calls: for set-up code and tests. It returns an error wrapping ErrExists
// when the name is taken.
func (a *Authenticator) CreateUser(ctx context.Context, name, password string, role authapi.Role) error {
	if !role.Valid() {
		return &invalidUser{"role", fmt.Sprintf("role %q: one of read-only, user, administrator", role)}
	}
	if !userNameRE.MatchString(name) {
		return &invalidUser{"user", fmt.Sprintf("user name %q: letters, digits and . _ @ - only, at most 64", name)}
	}
	if n := len(password); n < minPasswordLen || n > maxPasswordLen {
		return &invalidUser{"password", fmt.Sprintf("password of user %q: %d to %d bytes", name, minPasswordLen, maxPasswordLen)}
	}
	h, err := a.hasher.hash(ctx, password)
	if err != nil {
		return err
	}
	if err := a.store.CreateUser(ctx, User{Name: name, PasswordHash: h, Role: role, Created: a.now().UTC()}); err != nil {
		return fmt.Errorf("auth: creating user %q: %w", name, err)
	}
	return nil
}

func (a *Authenticator) listUsers(ctx context.Context) ([]authapi.UserInfo, error) {
	us, err := a.store.Users(ctx)
	if err != nil {
		return nil, apierr.New(apierr.Internal).Wrap(err)
	}
	out := make([]authapi.UserInfo, len(us))
	for i, u := range us {
		out[i] = userInfo(u)
	}
	return out, nil
}

// userInfo answers the user name as stored.
func (a *Authenticator) userInfo(ctx context.Context, name string) (authapi.UserInfo, error) {
	u, err := a.store.User(ctx, name)
	if err != nil {
		return authapi.UserInfo{}, apierr.New(apierr.Internal).Wrap(err)
	}
	return userInfo(u), nil
}

func userInfo(u User) authapi.UserInfo {
	r := storedRole(u)
	return authapi.UserInfo{User: u.Name, Role: r, Admin: r == authapi.RoleAdmin, Created: outTime(u.Created)}
}

func (a *Authenticator) createUser(ctx context.Context, in authapi.CreateUserArgs) (authapi.UserInfo, error) {
	id, err := identity(ctx)
	if err != nil {
		return authapi.UserInfo{}, err
	}
	role := in.Role
	switch {
	case in.Admin && role != "" && role != authapi.RoleAdmin:
		return authapi.UserInfo{}, apierr.New(apierr.InvalidArgument, "name", "admin", "reason", "admin true contradicts role "+string(role))
	case in.Admin:
		role = authapi.RoleAdmin
	case role == "":
		role = authapi.RoleUser
	}
	err = a.CreateUser(ctx, in.User, in.Password, role)
	var bad *invalidUser
	switch {
	case errors.As(err, &bad): // the schema counts characters, the rules bytes
		return authapi.UserInfo{}, apierr.New(apierr.InvalidArgument, "name", bad.arg, "reason", bad.reason)
	case errors.Is(err, ErrExists):
		return authapi.UserInfo{}, apierr.New(apierr.Conflict, "name", in.User)
	case err != nil:
		return authapi.UserInfo{}, apierr.New(apierr.Internal).Wrap(err)
	}
	a.log.Info("auth: user created", zap.String("user", in.User), zap.String("role", string(role)), zap.String("by", id.User))
	return a.userInfo(ctx, in.User)
}

// setRole changes another user's role; it applies to the user's sessions and keys at once.
func (a *Authenticator) setRole(ctx context.Context, in authapi.RoleArgs) (authapi.UserInfo, error) {
	id, err := identity(ctx)
	if err != nil {
		return authapi.UserInfo{}, err
	}
	if in.User == id.User {
		return authapi.UserInfo{}, apierr.New(apierr.InvalidArgument, "name", "user", "reason", "you cannot change your own role")
	}
	err = a.store.SetRole(ctx, in.User, in.Role)
	switch {
	case errors.Is(err, ErrNotFound):
		return authapi.UserInfo{}, apierr.New(apierr.NotFound, "name", in.User)
	case errors.Is(err, ErrLastAdmin):
		return authapi.UserInfo{}, lastAdmin(in.User)
	case err != nil:
		return authapi.UserInfo{}, apierr.New(apierr.Internal).Wrap(err)
	}
	a.cache.drop(func(e *entry) bool { return e.user == in.User })
	a.log.Info("auth: role changed", zap.String("user", in.User), zap.String("role", string(in.Role)), zap.String("by", id.User))
	return a.userInfo(ctx, in.User)
}

func (a *Authenticator) deleteUser(ctx context.Context, in authapi.UserArgs) (bool, error) {
	id, err := identity(ctx)
	if err != nil {
		return false, err
	}
	if in.User == id.User {
		return false, apierr.New(apierr.InvalidArgument, "name", "user", "reason", "you cannot delete yourself")
	}
	err = a.store.DeleteUser(ctx, in.User)
	switch {
	case errors.Is(err, ErrNotFound):
		return false, apierr.New(apierr.NotFound, "name", in.User)
	case errors.Is(err, ErrLastAdmin):
		return false, lastAdmin(in.User)
	case err != nil:
		return false, apierr.New(apierr.Internal).Wrap(err)
	}
	a.cache.drop(func(e *entry) bool { return e.user == in.User })
	a.log.Info("auth: user deleted", zap.String("user", in.User), zap.String("by", id.User))
	return true, nil
}

// lastAdmin is the error of a change that would leave no administrator.
func lastAdmin(user string) error {
	return apierr.New(apierr.Conflict, "name", user,
		"reason", "the only administrator left: make another user administrator first")
}

func (a *Authenticator) changePassword(ctx context.Context, in authapi.PasswordArgs) (bool, error) {
	id, err := identity(ctx)
	if err != nil {
		return false, err
	}
	c := callOf(ctx)
	if _, err := a.checkPassword(ctx, id.User, in.Old, c.Client()); err != nil {
		return false, err
	}
	h, err := a.hasher.hash(ctx, in.New)
	if err != nil {
		return false, err
	}
	if err := a.store.SetPassword(ctx, id.User, h); err != nil {
		return false, apierr.New(apierr.Internal).Wrap(err)
	}
	var keep Hash
	if id.Session {
		keep, _ = hashToken(SessionPrefix, c.Credentials.Session)
	}
	if err := a.store.DeleteSessions(ctx, id.User, keep); err != nil {
		return false, apierr.New(apierr.Internal).Wrap(err)
	}
	a.cache.drop(func(e *entry) bool { return e.session && e.user == id.User && e.hash != keep })
	a.log.Info("auth: password changed", zap.String("user", id.User))
	return true, nil
}
