package auth

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fnapi/fnapi/auth/authapi"
)

// MemoryStore is a Store that keeps everything in memory, for tests and for servers whose users
// may be forgotten at each restart. It is safe for concurrent use. The zero value is not
// usable; call NewMemoryStore.
type MemoryStore struct {
	mu       sync.Mutex
	users    map[string]User
	sessions map[Hash]Session
	keys     map[Hash]Key
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{users: map[string]User{}, sessions: map[Hash]Session{}, keys: map[Hash]Key{}}
}

var _ Store = (*MemoryStore)(nil)

func notFound(what, name string) error { return fmt.Errorf("%w: %s %q", ErrNotFound, what, name) }

// CreateUser implements Store.
func (m *MemoryStore) CreateUser(_ context.Context, u User) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.users[u.Name]; ok {
		return fmt.Errorf("%w: user %q", ErrExists, u.Name)
	}
	m.users[u.Name] = u
	return nil
}

// User implements Store.
func (m *MemoryStore) User(_ context.Context, name string) (User, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	u, ok := m.users[name]
	if !ok {
		return User{}, notFound("user", name)
	}
	return u, nil
}

// Users implements Store.
func (m *MemoryStore) Users(context.Context) ([]User, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	us := make([]User, 0, len(m.users))
	for _, u := range m.users {
		us = append(us, u)
	}
	slices.SortFunc(us, func(a, b User) int { return strings.Compare(a.Name, b.Name) })
	return us, nil
}

// SetPassword implements Store.
func (m *MemoryStore) SetPassword(_ context.Context, name, passwordHash string) error {
	return m.updateUser(name, func(u *User) { u.PasswordHash = passwordHash })
}

// SetRole implements Store.
func (m *MemoryStore) SetRole(_ context.Context, name string, role authapi.Role) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	u, ok := m.users[name]
	if !ok {
		return notFound("user", name)
	}
	if role != authapi.RoleAdmin && m.lastAdmin(name) {
		return ErrLastAdmin
	}
	u.Role = role
	m.users[name] = u
	return nil
}

// lastAdmin reports whether name is the only administrator. m.mu must be held.
func (m *MemoryStore) lastAdmin(name string) bool {
	if storedRole(m.users[name]) != authapi.RoleAdmin {
		return false
	}
	for n, u := range m.users {
		if n != name && storedRole(u) == authapi.RoleAdmin {
			return false
		}
	}
	return true
}

// updateUser runs change on the user name.
func (m *MemoryStore) updateUser(name string, change func(*User)) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	u, ok := m.users[name]
	if !ok {
		return notFound("user", name)
	}
	change(&u)
	m.users[name] = u
	return nil
}

// DeleteUser implements Store.
func (m *MemoryStore) DeleteUser(_ context.Context, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.users[name]; !ok {
		return notFound("user", name)
	}
	if m.lastAdmin(name) {
		return ErrLastAdmin
	}
	delete(m.users, name)
	for h, s := range m.sessions {
		if s.User == name {
			delete(m.sessions, h)
		}
	}
	for h, k := range m.keys {
		if k.User == name {
			delete(m.keys, h)
		}
	}
	return nil
}

// CreateSession implements Store.
func (m *MemoryStore) CreateSession(_ context.Context, s Session) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.users[s.User]; !ok {
		return notFound("user", s.User)
	}
	m.sessions[s.Hash] = s
	return nil
}

// Session implements Store.
func (m *MemoryStore) Session(_ context.Context, h Hash) (Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[h]
	if !ok {
		return Session{}, fmt.Errorf("%w: session", ErrNotFound)
	}
	return s, nil
}

// DeleteSession implements Store.
func (m *MemoryStore) DeleteSession(_ context.Context, h Hash) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.sessions, h)
	return nil
}

// DeleteSessions implements Store.
func (m *MemoryStore) DeleteSessions(_ context.Context, user string, keep Hash) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for h, s := range m.sessions {
		if s.User == user && h != keep {
			delete(m.sessions, h)
		}
	}
	return nil
}

// PurgeSessions implements Store.
func (m *MemoryStore) PurgeSessions(_ context.Context, idleBefore, createdBefore time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for h, s := range m.sessions {
		if s.LastSeen.Before(idleBefore) || s.Created.Before(createdBefore) {
			delete(m.sessions, h)
		}
	}
	return nil
}

// TouchSessions implements Store.
func (m *MemoryStore) TouchSessions(_ context.Context, ts []Touch) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range ts {
		if s, ok := m.sessions[t.Hash]; ok && t.At.After(s.LastSeen) {
			s.LastSeen = t.At
			m.sessions[t.Hash] = s
		}
	}
	return nil
}

// CreateKey implements Store.
func (m *MemoryStore) CreateKey(_ context.Context, k Key) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.users[k.User]; !ok {
		return notFound("user", k.User)
	}
	for _, o := range m.keys {
		if o.User == k.User && o.Name == k.Name {
			return fmt.Errorf("%w: key %q", ErrExists, k.Name)
		}
	}
	m.keys[k.Hash] = k
	return nil
}

// Key implements Store.
func (m *MemoryStore) Key(_ context.Context, h Hash) (Key, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, ok := m.keys[h]
	if !ok {
		return Key{}, fmt.Errorf("%w: key", ErrNotFound)
	}
	return k, nil
}

// Keys implements Store.
func (m *MemoryStore) Keys(_ context.Context, user string) ([]Key, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ks []Key
	for _, k := range m.keys {
		if k.User == user {
			ks = append(ks, k)
		}
	}
	slices.SortFunc(ks, func(a, b Key) int { return strings.Compare(a.Name, b.Name) })
	return ks, nil
}

// DeleteKey implements Store.
func (m *MemoryStore) DeleteKey(_ context.Context, user, name string) (Hash, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for h, k := range m.keys {
		if k.User == user && k.Name == name {
			delete(m.keys, h)
			return h, nil
		}
	}
	return Hash{}, notFound("key", name)
}

// TouchKeys implements Store.
func (m *MemoryStore) TouchKeys(_ context.Context, ts []Touch) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range ts {
		if k, ok := m.keys[t.Hash]; ok && t.At.After(k.LastUsed) {
			k.LastUsed = t.At
			m.keys[t.Hash] = k
		}
	}
	return nil
}
