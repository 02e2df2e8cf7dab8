package auth

import (
	"context"
	"errors"
	"time"

	"github.com/fnapi/fnapi/auth/authapi"
)

// Sentinel errors a Store returns (possibly wrapped), so that the Authenticator can answer
// NOT-FOUND and CONFLICT without knowing the store.
var (
	// ErrNotFound: the user, session or key does not exist.
	ErrNotFound = errors.New("auth: not found")
	// ErrExists: a user of that name, or a key of that name for that user, already exists.
	ErrExists = errors.New("auth: already exists")
	// ErrLastAdmin: the change would leave the store without an administrator.
	ErrLastAdmin = errors.New("auth: the last administrator")
)

// Hash is the SHA-256 hash of a session ID or an API key: the only form in which a store ever
// holds them.
type Hash [32]byte

// User is a user account as stored.
type User struct {
	// Name is the user's login name, unique.
	Name string
	// PasswordHash is the password in the encoded argon2id form; never the password.
	PasswordHash string
	// Role is what the user may do. Empty counts as authapi.RoleUser.
	Role authapi.Role
	// Created is when the account was made.
	Created time.Time
}

// Session is a login session as stored.
type Session struct {
	// Hash identifies the session: the hash of its ID.
	Hash Hash
	// User is the user who logged in.
	User string
	// Created is when the session began; it ends at Created plus the maximum lifetime.
	Created time.Time
	// LastSeen is when it was last used, as last recorded; it ends after the idle timeout.
	LastSeen time.Time
}

// Key is an API key as stored.
type Key struct {
	// Hash identifies the key: the hash of the key.
	Hash Hash
	// User owns the key.
	User string
	// Name is unique among the user's keys.
	Name string
	// Created is when the key was made.
	Created time.Time
	// LastUsed is when the key was last used, as last recorded; zero when never.
	LastUsed time.Time
}

// Touch records that a session or key was used at a time. Stores keep the latest time they
// are given and ignore older ones.
type Touch struct {
	// Hash identifies the session or key.
	Hash Hash
	// At is when it was used.
	At time.Time
}

// Store keeps users, sessions and API keys. Implementations must be safe for concurrent use,
// return ErrNotFound and ErrExists (possibly wrapped) as documented, and make each method
// atomic: DeleteUser in particular removes the user, its sessions and its keys together.
// MemoryStore is one; package sqlstore has a persistent one.
type Store interface {
	// CreateUser adds u; ErrExists when the name is taken.
	CreateUser(ctx context.Context, u User) error
	// User returns the user name; ErrNotFound when there is none.
	User(ctx context.Context, name string) (User, error)
	// Users returns every user, by name.
	Users(ctx context.Context) ([]User, error)
	// SetPassword replaces the password hash of user name; ErrNotFound when there is none.
	SetPassword(ctx context.Context, name, passwordHash string) error
	// SetRole replaces the role of user name; ErrNotFound when there is none, ErrLastAdmin
	// when name is the only administrator and role is not authapi.RoleAdmin. The check and the change
	// are one transaction: two administrators demoting each other at once leave one.
	SetRole(ctx context.Context, name string, role authapi.Role) error
	// DeleteUser removes the user name with its sessions and keys; ErrNotFound when there is
	// none, ErrLastAdmin when name is the only administrator (checked as SetRole checks).
	DeleteUser(ctx context.Context, name string) error

	// CreateSession adds s; the user must exist (ErrNotFound otherwise).
	CreateSession(ctx context.Context, s Session) error
	// Session returns the session with hash h; ErrNotFound when there is none.
	Session(ctx context.Context, h Hash) (Session, error)
	// DeleteSession ends the session with hash h; no error when there is none.
	DeleteSession(ctx context.Context, h Hash) error
	// DeleteSessions ends every session of user except the one with hash keep.
	DeleteSessions(ctx context.Context, user string, keep Hash) error
	// PurgeSessions removes the sessions last seen before idleBefore or created before
	// createdBefore: those that have expired.
	PurgeSessions(ctx context.Context, idleBefore, createdBefore time.Time) error
	// TouchSessions records when sessions were last used.
	TouchSessions(ctx context.Context, ts []Touch) error

	// CreateKey adds k; ErrExists when the user has a key of that name, ErrNotFound when the
	// user does not exist.
	CreateKey(ctx context.Context, k Key) error
	// Key returns the key with hash h; ErrNotFound when there is none.
	Key(ctx context.Context, h Hash) (Key, error)
	// Keys returns the keys of user, by name.
	Keys(ctx context.Context, user string) ([]Key, error)
	// DeleteKey revokes the key name of user and returns its hash; ErrNotFound when there is none.
	DeleteKey(ctx context.Context, user, name string) (Hash, error)
	// TouchKeys records when keys were last used.
	TouchKeys(ctx context.Context, ts []Touch) error
}
