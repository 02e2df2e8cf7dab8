package authtest

import (
	"context"
	"crypto/sha256"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/auth/authapi"
)

// Run checks the store that newStore returns (an empty one for each subtest) against the
// contract of auth.Store.
func Run(t *testing.T, newStore func(t *testing.T) auth.Store) {
	ctx := context.Background()
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	hash := func(s string) auth.Hash { return sha256.Sum256([]byte(s)) }
	must := func(t *testing.T, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	user := func(t *testing.T, s auth.Store, name string) {
		t.Helper()
		must(t, s.CreateUser(ctx, auth.User{Name: name, PasswordHash: "$argon2id$x", Created: t0}))
	}

	t.Run("users", func(t *testing.T) {
		s := newStore(t)
		must(t, s.CreateUser(ctx, auth.User{Name: "bob", PasswordHash: "h1", Role: authapi.RoleAdmin, Created: t0}))
		user(t, s, "ann")
		if err := s.CreateUser(ctx, auth.User{Name: "bob"}); !errors.Is(err, auth.ErrExists) {
			t.Fatalf("duplicate user: %v, want ErrExists", err)
		}
		u, err := s.User(ctx, "bob")
		must(t, err)
		if u.Name != "bob" || u.PasswordHash != "h1" || u.Role != authapi.RoleAdmin || !u.Created.Equal(t0) {
			t.Fatalf("User = %+v", u)
		}
		if _, err := s.User(ctx, "nobody"); !errors.Is(err, auth.ErrNotFound) {
			t.Fatalf("unknown user: %v", err)
		}
		must(t, s.SetPassword(ctx, "bob", "h2"))
		if u, _ := s.User(ctx, "bob"); u.PasswordHash != "h2" {
			t.Fatalf("password not set: %q", u.PasswordHash)
		}
		if err := s.SetPassword(ctx, "nobody", "h"); !errors.Is(err, auth.ErrNotFound) {
			t.Fatalf("SetPassword of unknown user: %v", err)
		}
		for _, r := range authapi.Roles {
			if err := s.SetRole(ctx, "bob", r); r != authapi.RoleAdmin && !errors.Is(err, auth.ErrLastAdmin) {
				t.Fatalf("SetRole(%q) of the only administrator: %v, want ErrLastAdmin", r, err)
			}
		}
		must(t, s.SetRole(ctx, "ann", authapi.RoleAdmin))
		for _, r := range authapi.Roles {
			must(t, s.SetRole(ctx, "bob", r))
			if u, _ := s.User(ctx, "bob"); u.Role != r || u.PasswordHash != "h2" {
				t.Fatalf("after SetRole(%q): %+v", r, u)
			}
		}
		must(t, s.CreateUser(ctx, auth.User{Name: "carl", PasswordHash: "h", Role: authapi.RoleReadOnly, Created: t0}))
		if u, _ := s.User(ctx, "carl"); u.Role != authapi.RoleReadOnly {
			t.Fatalf("read-only user stored as %+v", u)
		}
		if err := s.SetRole(ctx, "nobody", authapi.RoleUser); !errors.Is(err, auth.ErrNotFound) {
			t.Fatalf("SetRole of unknown user: %v", err)
		}
		us, err := s.Users(ctx)
		must(t, err)
		if len(us) != 3 || us[0].Name != "ann" || us[1].Name != "bob" || us[2].Name != "carl" || us[1].Role != authapi.RoleAdmin {
			t.Fatalf("Users = %+v", us)
		}
		if err := s.DeleteUser(ctx, "nobody"); !errors.Is(err, auth.ErrNotFound) {
			t.Fatalf("DeleteUser of unknown user: %v", err)
		}
	})

	t.Run("an administrator remains", func(t *testing.T) {
		s := newStore(t)
		user(t, s, "ann")
		must(t, s.CreateUser(ctx, auth.User{Name: "root", PasswordHash: "h", Role: authapi.RoleAdmin, Created: t0}))
		if err := s.DeleteUser(ctx, "root"); !errors.Is(err, auth.ErrLastAdmin) {
			t.Fatalf("DeleteUser of the only administrator: %v, want ErrLastAdmin", err)
		}
		if err := s.SetRole(ctx, "root", authapi.RoleUser); !errors.Is(err, auth.ErrLastAdmin) {
			t.Fatalf("SetRole of the only administrator: %v, want ErrLastAdmin", err)
		}
		must(t, s.SetRole(ctx, "ann", authapi.RoleUser)) // not an administrator: nothing to keep
		// Two administrators demoting (or deleting) each other at once: one change is made.
		for round := range 10 {
			must(t, s.SetRole(ctx, "ann", authapi.RoleAdmin))
			var wg sync.WaitGroup
			errs := make([]error, 2)
			wg.Go(func() { errs[0] = s.SetRole(ctx, "ann", authapi.RoleReadOnly) })
			wg.Go(func() {
				if round%2 == 0 {
					errs[1] = s.SetRole(ctx, "root", authapi.RoleUser)
				} else {
					errs[1] = s.DeleteUser(ctx, "root")
				}
			})
			wg.Wait()
			refused := 0
			for _, err := range errs {
				if errors.Is(err, auth.ErrLastAdmin) {
					refused++
				} else {
					must(t, err)
				}
			}
			admins := 0
			us, err := s.Users(ctx)
			must(t, err)
			for _, u := range us {
				if u.Role == authapi.RoleAdmin {
					admins++
				}
			}
			if refused != 1 || admins != 1 {
				t.Fatalf("round %d: %d of 2 changes refused, %d administrators left; want 1 and 1 (%v)", round, refused, admins, errs)
			}
			// Back to two administrators, root and ann.
			if _, err := s.User(ctx, "root"); errors.Is(err, auth.ErrNotFound) {
				must(t, s.CreateUser(ctx, auth.User{Name: "root", PasswordHash: "h", Role: authapi.RoleAdmin, Created: t0}))
			}
			must(t, s.SetRole(ctx, "root", authapi.RoleAdmin))
		}
	})

	t.Run("sessions", func(t *testing.T) {
		s := newStore(t)
		user(t, s, "ann")
		a, b, c := hash("a"), hash("b"), hash("c")
		must(t, s.CreateSession(ctx, auth.Session{Hash: a, User: "ann", Created: t0, LastSeen: t0}))
		must(t, s.CreateSession(ctx, auth.Session{Hash: b, User: "ann", Created: t0, LastSeen: t0}))
		must(t, s.CreateSession(ctx, auth.Session{Hash: c, User: "ann", Created: t0.Add(time.Hour), LastSeen: t0.Add(time.Hour)}))
		if err := s.CreateSession(ctx, auth.Session{Hash: hash("x"), User: "nobody", Created: t0, LastSeen: t0}); !errors.Is(err, auth.ErrNotFound) {
			t.Fatalf("session of unknown user: %v", err)
		}
		got, err := s.Session(ctx, a)
		must(t, err)
		if got.User != "ann" || !got.Created.Equal(t0) || !got.LastSeen.Equal(t0) {
			t.Fatalf("Session = %+v", got)
		}
		must(t, s.TouchSessions(ctx, []auth.Touch{{Hash: a, At: t0.Add(2 * time.Hour)}, {Hash: hash("gone"), At: t0}}))
		must(t, s.TouchSessions(ctx, []auth.Touch{{Hash: a, At: t0.Add(time.Hour)}})) // older: ignored
		if got, _ := s.Session(ctx, a); !got.LastSeen.Equal(t0.Add(2 * time.Hour)) {
			t.Fatalf("LastSeen = %v", got.LastSeen)
		}
		// b is idle since t0; c was created an hour later and a was seen later.
		must(t, s.PurgeSessions(ctx, t0.Add(time.Minute), t0.Add(-time.Hour)))
		if _, err := s.Session(ctx, b); !errors.Is(err, auth.ErrNotFound) {
			t.Fatalf("idle session not purged: %v", err)
		}
		must(t, s.PurgeSessions(ctx, t0, t0.Add(time.Minute))) // a was created at t0: too old
		if _, err := s.Session(ctx, a); !errors.Is(err, auth.ErrNotFound) {
			t.Fatalf("old session not purged: %v", err)
		}
		if _, err := s.Session(ctx, c); err != nil {
			t.Fatalf("live session purged: %v", err)
		}
		must(t, s.DeleteSession(ctx, c))
		must(t, s.DeleteSession(ctx, c))
		if _, err := s.Session(ctx, c); !errors.Is(err, auth.ErrNotFound) {
			t.Fatalf("deleted session: %v", err)
		}
		user(t, s, "bob")
		for _, x := range []struct {
			h auth.Hash
			u string
		}{{hash("1"), "ann"}, {hash("2"), "ann"}, {hash("3"), "bob"}} {
			must(t, s.CreateSession(ctx, auth.Session{Hash: x.h, User: x.u, Created: t0, LastSeen: t0}))
		}
		must(t, s.DeleteSessions(ctx, "ann", hash("2")))
		for h, want := range map[auth.Hash]bool{hash("1"): false, hash("2"): true, hash("3"): true} {
			if _, err := s.Session(ctx, h); (err == nil) != want {
				t.Errorf("after DeleteSessions: session exists=%v, want %v", err == nil, want)
			}
		}
	})

	t.Run("keys", func(t *testing.T) {
		s := newStore(t)
		user(t, s, "ann")
		user(t, s, "bob")
		must(t, s.CreateKey(ctx, auth.Key{Hash: hash("k1"), User: "ann", Name: "ci", Created: t0}))
		must(t, s.CreateKey(ctx, auth.Key{Hash: hash("k2"), User: "ann", Name: "backup", Created: t0}))
		must(t, s.CreateKey(ctx, auth.Key{Hash: hash("k3"), User: "bob", Name: "ci", Created: t0}))
		if err := s.CreateKey(ctx, auth.Key{Hash: hash("k4"), User: "ann", Name: "ci", Created: t0}); !errors.Is(err, auth.ErrExists) {
			t.Fatalf("duplicate key name: %v", err)
		}
		if err := s.CreateKey(ctx, auth.Key{Hash: hash("k5"), User: "nobody", Name: "x", Created: t0}); !errors.Is(err, auth.ErrNotFound) {
			t.Fatalf("key of unknown user: %v", err)
		}
		k, err := s.Key(ctx, hash("k1"))
		must(t, err)
		if k.User != "ann" || k.Name != "ci" || !k.Created.Equal(t0) || !k.LastUsed.IsZero() {
			t.Fatalf("Key = %+v", k)
		}
		must(t, s.TouchKeys(ctx, []auth.Touch{{Hash: hash("k1"), At: t0.Add(time.Minute)}}))
		must(t, s.TouchKeys(ctx, []auth.Touch{{Hash: hash("k1"), At: t0}}))
		ks, err := s.Keys(ctx, "ann")
		must(t, err)
		if len(ks) != 2 || ks[0].Name != "backup" || ks[1].Name != "ci" || !ks[1].LastUsed.Equal(t0.Add(time.Minute)) {
			t.Fatalf("Keys = %+v", ks)
		}
		h, err := s.DeleteKey(ctx, "ann", "ci")
		must(t, err)
		if h != hash("k1") {
			t.Fatal("DeleteKey returned another hash")
		}
		if _, err := s.Key(ctx, hash("k1")); !errors.Is(err, auth.ErrNotFound) {
			t.Fatalf("revoked key: %v", err)
		}
		if _, err := s.DeleteKey(ctx, "ann", "ci"); !errors.Is(err, auth.ErrNotFound) {
			t.Fatalf("revoking twice: %v", err)
		}
		if _, err := s.Key(ctx, hash("k3")); err != nil {
			t.Fatalf("bob's key of the same name: %v", err)
		}
	})

	t.Run("delete user", func(t *testing.T) {
		s := newStore(t)
		user(t, s, "ann")
		user(t, s, "bob")
		must(t, s.CreateSession(ctx, auth.Session{Hash: hash("s"), User: "ann", Created: t0, LastSeen: t0}))
		must(t, s.CreateKey(ctx, auth.Key{Hash: hash("k"), User: "ann", Name: "ci", Created: t0}))
		must(t, s.CreateKey(ctx, auth.Key{Hash: hash("kb"), User: "bob", Name: "ci", Created: t0}))
		must(t, s.DeleteUser(ctx, "ann"))
		if _, err := s.Session(ctx, hash("s")); !errors.Is(err, auth.ErrNotFound) {
			t.Errorf("session of deleted user: %v", err)
		}
		if _, err := s.Key(ctx, hash("k")); !errors.Is(err, auth.ErrNotFound) {
			t.Errorf("key of deleted user: %v", err)
		}
		if _, err := s.Key(ctx, hash("kb")); err != nil {
			t.Errorf("other user's key: %v", err)
		}
		// The name can be taken again, without the old keys.
		user(t, s, "ann")
		if ks, _ := s.Keys(ctx, "ann"); len(ks) != 0 {
			t.Errorf("recreated user has keys %+v", ks)
		}
	})
}
