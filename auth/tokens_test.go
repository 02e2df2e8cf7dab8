package auth_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/auth"
)

func TestTokenCarriers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, auth.NewMemoryStore())
	s := e.login("admin", adminPassword)
	k := e.createKey(s, "ci")
	tests := []struct {
		name    string
		call    func() response
		session bool
	}{
		{"cookie", func() response { return e.get("whoami", nil, cookie(s)) }, true},
		{"_session in the query", func() response { return e.get("whoami", withSession(s), nil) }, true},
		{"_session in a JSON body", func() response { return e.post("whoami", withSession(s), nil) }, true},
		{"_session unquoted", func() response {
			req, _ := http.NewRequest("GET", e.srv.URL+"/api/whoami?_session="+s, nil)
			return e.do(req)
		}, true},
		{"_session upper case", func() response { return e.get("whoami", withSession(strings.ToUpper(s[8:]+"")), nil) }, false},
		{"header", func() response { return e.get("whoami", nil, header("Svc-Authorization", k)) }, false},
		{"header with Bearer", func() response { return e.get("whoami", nil, header("Svc-Authorization", "Bearer "+k)) }, false},
		{"_key in the query", func() response { return e.get("whoami", withKey(k), nil) }, false},
		{"_key in a JSON body", func() response { return e.post("whoami", withKey(k), nil) }, false},
		{"key wins over session", func() response { return e.get("whoami", map[string]any{"_key": k, "_session": s}, nil) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.call()
			if tt.name == "_session upper case" { // not a session ID at all
				wantAuthNeeded(t, r, "whoami")
				return
			}
			id, _ := r.msg["result"].(map[string]any)
			if !r.ok() || id["user"] != "admin" || id["admin"] != true || (id["token"] == "session") != tt.session {
				t.Fatalf("got %d %s", r.status, r.raw)
			}
			if !tt.session && id["key_name"] != "ci" {
				t.Fatalf("key name: %s", r.raw)
			}
		})
	}
	t.Run("hex digits in upper case", func(t *testing.T) {
		if r := e.get("whoami", withKey("secret:"+strings.ToUpper(k[7:])), nil); !r.ok() {
			t.Fatalf("got %d %s", r.status, r.raw)
		}
	})
}

func TestRefusedTokens(t *testing.T) {
	t.Parallel()
	e := newEnv(t, auth.NewMemoryStore())
	s := e.login("admin", adminPassword)
	k := e.createKey(s, "ci")
	tests := []struct {
		name string
		fn   string
		args map[string]any
		mod  func(*http.Request)
	}{
		{"none", "whoami", nil, nil},
		{"empty", "whoami", withSession(""), nil},
		{"malformed session", "whoami", withSession("session:123"), nil},
		{"key as session", "whoami", withSession(k), nil},
		{"session as key", "whoami", withKey(s), nil},
		{"unknown session", "whoami", withSession("session:0b0c3a57-7c2e-4c54-9a4e-5f1d2c3b4a59"), nil},
		{"unknown key", "whoami", withKey("secret:0b0c3a57-7c2e-4c54-9a4e-5f1d2c3b4a59"), nil},
		{"bad key beside a good session", "whoami", map[string]any{"_session": s, "_key": "secret:nope"}, nil},
		{"key where a session is needed", "need-session", withKey(k), nil},
		{"create-api-key with a key", "create-api-key", map[string]any{"name": "x", "_key": k}, nil},
		{"create-api-key with a key in the header", "create-api-key", map[string]any{"name": "x"}, header("Svc-Authorization", k)},
		{"before arguments are checked", "create-api-key", map[string]any{"bogus": 1}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantAuthNeeded(t, e.get(tt.fn, tt.args, tt.mod), tt.fn)
		})
	}
}

func TestCrossSite(t *testing.T) {
	t.Parallel()
	e := newEnv(t, auth.NewMemoryStore())
	s := e.login("admin", adminPassword)
	k := e.createKey(s, "ci")
	own := e.srv.URL
	tests := []struct {
		name string
		args map[string]any
		mod  func(*http.Request)
		ok   bool
	}{
		{"cookie, Sec-Fetch-Site cross-site", nil, both(cookie(s), header("Sec-Fetch-Site", "cross-site")), false},
		{"cookie, foreign Origin", nil, both(cookie(s), header("Origin", "https://evil.example")), false},
		{"cookie, same-origin", nil, both(cookie(s), header("Sec-Fetch-Site", "same-origin"), header("Origin", own)), true},
		{"cookie, same-site", nil, both(cookie(s), header("Sec-Fetch-Site", "same-site")), true},
		{"cookie, no browser headers", nil, cookie(s), true},
		{"_session, cross-site", withSession(s), header("Sec-Fetch-Site", "cross-site"), true},
		{"key, cross-site", withKey(k), both(cookie(s), header("Sec-Fetch-Site", "cross-site")), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, r := range e.eachMethod("whoami", tt.args, tt.mod) {
				if tt.ok != r.ok() {
					t.Fatalf("got %d %s, want ok=%v", r.status, r.raw, tt.ok)
				}
				if !tt.ok {
					wantAuthNeeded(t, r, "whoami")
				}
			}
		})
	}
	for _, site := range []string{"cross-site", "same-site", "none"} {
		t.Run("login "+site+" sets no cookie", func(t *testing.T) {
			r := e.post("login", map[string]any{"user": "admin", "password": adminPassword}, header("Sec-Fetch-Site", site))
			if !r.ok() || r.header.Get("Set-Cookie") != "" {
				t.Fatalf("got %d %s, Set-Cookie %q", r.status, r.raw, r.header.Get("Set-Cookie"))
			}
		})
	}
	t.Run("logout by a cross-site cookie refused", func(t *testing.T) {
		wantAuthNeeded(t, e.post("logout", nil, both(cookie(s), header("Sec-Fetch-Site", "cross-site"))), "logout")
		if r := e.get("whoami", withSession(s), nil); !r.ok() {
			t.Fatalf("session ended: %s", r.raw)
		}
	})
}

func TestLoginCookie(t *testing.T) {
	t.Parallel()
	e := newEnv(t, auth.NewMemoryStore())
	r := e.post("login", map[string]any{"user": "admin", "password": adminPassword}, sameOrigin)
	cs := (&http.Response{Header: r.header}).Cookies()
	if len(cs) != 1 {
		t.Fatalf("cookies %v", r.header["Set-Cookie"])
	}
	c := cs[0]
	if c.Name != "Svc-Session" || c.Value != r.result() || !c.HttpOnly || !c.Secure || c.SameSite != http.SameSiteStrictMode || c.Path != "/" {
		t.Fatalf("cookie %+v", c)
	}
	if got := e.get("whoami", nil, cookie(c.Value)); !got.ok() {
		t.Fatalf("cookie session refused: %s", got.raw)
	}
}

func TestLogout(t *testing.T) {
	t.Parallel()
	e := newEnv(t, auth.NewMemoryStore())
	s := e.login("admin", adminPassword)
	other := e.login("admin", adminPassword)
	r := e.post("logout", nil, both(cookie(s), sameOrigin))
	if !r.ok() || !strings.Contains(r.header.Get("Set-Cookie"), "Max-Age=0") {
		t.Fatalf("logout: %d %s %q", r.status, r.raw, r.header.Get("Set-Cookie"))
	}
	wantAuthNeeded(t, e.get("whoami", withSession(s), nil), "whoami")
	wantAuthNeeded(t, e.get("logout", withSession(s), nil), "logout")
	if r := e.get("whoami", withSession(other), nil); !r.ok() {
		t.Fatalf("another session ended: %s", r.raw)
	}
}

func TestSessionExpiry(t *testing.T) {
	t.Parallel()
	e := newEnv(t, auth.NewMemoryStore(), auth.WithSessionIdle(10*time.Minute), auth.WithSessionMax(time.Hour))
	who := func(s string) response { return e.get("whoami", withSession(s), nil) }
	t.Run("idle", func(t *testing.T) {
		s := e.login("admin", adminPassword)
		e.clock.advance(9 * time.Minute)
		if r := who(s); !r.ok() {
			t.Fatalf("before the idle timeout: %s", r.raw)
		}
		e.clock.advance(9 * time.Minute) // 18 min after login, 9 after the last use
		if r := who(s); !r.ok() {
			t.Fatalf("use did not extend the session: %s", r.raw)
		}
		e.clock.advance(10 * time.Minute)
		wantAuthNeeded(t, who(s), "whoami")
		e.clock.advance(-10 * time.Minute) // gone for good, not merely late
		wantAuthNeeded(t, who(s), "whoami")
	})
	t.Run("maximum lifetime", func(t *testing.T) {
		s := e.login("admin", adminPassword)
		for i := 0; i < 6; i++ {
			e.clock.advance(9 * time.Minute)
			if r := who(s); !r.ok() {
				t.Fatalf("after %d min: %s", 9*(i+1), r.raw)
			}
		}
		e.clock.advance(7 * time.Minute) // 61 min after login
		wantAuthNeeded(t, who(s), "whoami")
	})
	t.Run("limits changed while serving", func(t *testing.T) {
		s := e.login("admin", adminPassword)
		e.clock.advance(5 * time.Minute)
		if err := e.a.SetSessionLimits(4*time.Minute, time.Hour); err != nil {
			t.Fatal(err)
		}
		wantAuthNeeded(t, who(s), "whoami")
		if err := e.a.SetSessionLimits(0, time.Hour); err == nil {
			t.Fatal("a zero idle timeout was accepted")
		}
	})
	t.Run("keys do not expire", func(t *testing.T) {
		if err := e.a.SetSessionLimits(10*time.Minute, time.Hour); err != nil {
			t.Fatal(err)
		}
		k := e.createKey(e.login("admin", adminPassword), "long")
		e.clock.advance(1000 * time.Hour)
		if r := e.get("whoami", withKey(k), nil); !r.ok() {
			t.Fatalf("key expired: %s", r.raw)
		}
	})
}

func TestAPIKeys(t *testing.T) {
	t.Parallel()
	e := newEnv(t, auth.NewMemoryStore())
	s := e.login("admin", adminPassword)
	k1 := e.createKey(s, "ci")
	k2 := e.createKey(s, "backup")
	if r := e.get("create-api-key", map[string]any{"name": "ci", "_session": s}, nil); r.status != 409 || r.code() != "CONFLICT" || r.msg["name"] != "ci" {
		t.Fatalf("duplicate name: %d %s", r.status, r.raw)
	}
	if k1 == k2 {
		t.Fatal("two keys are equal")
	}
	e.clock.advance(time.Minute)
	if r := e.get("whoami", withKey(k1), nil); !r.ok() {
		t.Fatal(r.raw)
	}
	r := e.get("list-api-keys", withKey(k2), nil)
	if !r.ok() || strings.Contains(r.raw, k1[7:]) || strings.Contains(r.raw, k2[7:]) {
		t.Fatalf("list-api-keys: %s", r.raw)
	}
	list := r.msg["result"].([]any)
	if len(list) != 2 {
		t.Fatalf("list-api-keys: %s", r.raw)
	}
	byName := map[string]map[string]any{}
	for _, x := range list {
		m := x.(map[string]any)
		byName[m["name"].(string)] = m
	}
	created := e.clock.now().Add(-time.Minute).Format(time.RFC3339)
	if ci := byName["ci"]; ci["created"] != created || ci["last_used"] != e.clock.now().Format(time.RFC3339) {
		t.Fatalf("ci: %v", ci)
	}
	if len(byName["backup"]) != 3 || byName["backup"]["last_used"] != e.clock.now().Format(time.RFC3339) {
		t.Fatalf("backup: %v", byName["backup"])
	}

	if r := e.get("revoke-api-key", map[string]any{"name": "ci", "_key": k2}, nil); !r.ok() {
		t.Fatalf("revoke: %s", r.raw)
	}
	wantAuthNeeded(t, e.get("whoami", withKey(k1), nil), "whoami")
	if r := e.get("revoke-api-key", map[string]any{"name": "ci", "_key": k2}, nil); r.status != 404 || r.code() != "NOT-FOUND" {
		t.Fatalf("revoke twice: %s", r.raw)
	}
	if r := e.get("whoami", withKey(k2), nil); !r.ok() {
		t.Fatalf("other key revoked: %s", r.raw)
	}
	// The name is free again, for a new key.
	if k3 := e.createKey(s, "ci"); k3 == k1 {
		t.Fatal("the revoked key came back")
	}
	wantAuthNeeded(t, e.get("whoami", withKey(k1), nil), "whoami")
}

func TestLastUseFlushed(t *testing.T) {
	t.Parallel()
	store := auth.NewMemoryStore()
	e := newEnv(t, store, auth.WithFlushInterval(time.Minute))
	k := e.createKey(e.login("admin", adminPassword), "ci")
	e.clock.advance(2 * time.Minute)
	if r := e.get("whoami", withKey(k), nil); !r.ok() { // starts a background flush
		t.Fatal(r.raw)
	}
	if err := e.a.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	ks, _ := store.Keys(t.Context(), "admin")
	if len(ks) != 1 || !ks[0].LastUsed.Equal(e.clock.now()) {
		t.Fatalf("stored keys %+v, want last use %v", ks, e.clock.now())
	}
}
