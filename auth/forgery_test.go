package auth_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/fnapi/fnapi/auth"
	"go.uber.org/zap"
)

// TestSameSiteForgery checks the rule of cookie-only calls: a function that may change
// something needs the browser to say the request comes from the server's own origin, or no
// browser at all; a read-only one is refused only cross-site (an http:// Origin on an https
// server is cross-site).
func TestSameSiteForgery(t *testing.T) {
	t.Parallel()
	e := newEnv(t, auth.NewMemoryStore())
	s := e.login("admin", adminPassword)
	k := e.createKey(s, "ci")
	own := e.srv.URL
	plainOwn := "http" + strings.TrimPrefix(own, "https")
	tests := []struct {
		name string
		fn   string
		args map[string]any
		mod  func(*http.Request)
		ok   bool
	}{
		{"same-site cookie, changing", "touch", nil, both(cookie(s), header("Sec-Fetch-Site", "same-site")), false},
		{"same-site cookie, own Origin claimed", "touch", nil,
			both(cookie(s), header("Sec-Fetch-Site", "same-site"), header("Origin", own)), false},
		{"user-typed URL, changing", "touch", nil, both(cookie(s), header("Sec-Fetch-Site", "none")), false},
		{"no browser headers, changing", "touch", nil, cookie(s), true},
		{"Origin of another scheme", "touch", nil, both(cookie(s), header("Origin", plainOwn)), false},
		{"Origin of another scheme, read-only", "whoami", nil, both(cookie(s), header("Origin", plainOwn)), false},
		{"Origin of a sibling", "touch", nil, both(cookie(s), header("Origin", "https://sibling.localhost")), false},
		{"logout from a sibling", "logout", nil, both(cookie(s), header("Sec-Fetch-Site", "same-site")), false},
		{"same-origin cookie, changing", "touch", nil, both(cookie(s), sameOrigin), true},
		{"own Origin without Sec-Fetch-Site", "touch", nil, both(cookie(s), header("Origin", own)), true},
		{"same-site cookie, read-only", "whoami", nil, both(cookie(s), header("Sec-Fetch-Site", "same-site")), true},
		{"no browser headers, read-only", "whoami", nil, cookie(s), true},
		{"_session, same-site", "touch", withSession(s), header("Sec-Fetch-Site", "same-site"), true},
		{"key header, same-site", "touch", nil, both(header("Svc-Authorization", k), header("Sec-Fetch-Site", "same-site")), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, r := range e.eachMethod(tt.fn, tt.args, tt.mod) {
				if tt.ok != r.ok() {
					t.Fatalf("got %d %s, want ok=%v", r.status, r.raw, tt.ok)
				}
				if !tt.ok {
					wantAuthNeeded(t, r, tt.fn)
					if r.msg["reason"] == nil {
						t.Errorf("no reason: %s", r.raw)
					}
				}
			}
		})
	}
	if r := e.get("whoami", withSession(s), nil); !r.ok() {
		t.Fatalf("the forged logout ended the session: %s", r.raw)
	}
}

// TestConflictingCredentials checks that a call with two different tokens is refused rather
// than run as one of them.
func TestConflictingCredentials(t *testing.T) {
	t.Parallel()
	e := newEnv(t, auth.NewMemoryStore())
	s := e.login("admin", adminPassword)
	s2 := e.login("admin", adminPassword)
	k := e.createKey(s, "ci")
	k2 := e.createKey(s, "ci2")
	if r := e.post("create-user", map[string]any{"user": "bob", "password": "bob's password", "_session": s}, nil); !r.ok() {
		t.Fatal(r.raw)
	}
	bob := e.login("bob", "bob's password")
	bobKey := e.createKey(bob, "ci")
	tests := []struct {
		name string
		fn   string
		args map[string]any
		mod  func(*http.Request)
		arg  string // the argument the error names
	}{
		{"cookie of one user, _key of another", "whoami", withKey(bobKey), both(cookie(s), sameOrigin), "_key"},
		{"cookie of one user, key header of another", "whoami", nil, both(cookie(bob), header("Svc-Authorization", k)), "_key"},
		{"_session of one user, _key of another", "whoami", map[string]any{"_session": s, "_key": bobKey}, nil, "_key"},
		{"session needed, key of another", "need-session", map[string]any{"_session": s, "_key": bobKey}, nil, "_key"},
		{"two key headers", "whoami", nil, func(r *http.Request) {
			r.Header.Add("Svc-Authorization", k)
			r.Header.Add("Svc-Authorization", k2)
		}, "Svc-Authorization"},
		{"two session cookies", "whoami", nil, both(cookie(s), cookie(s2)), "Svc-Session"},
		{"cookie and another _session", "whoami", withSession(s2), cookie(s), "_session"},
		{"key header and another _key", "whoami", withKey(k2), header("Svc-Authorization", k), "_key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, r := range e.eachMethod(tt.fn, tt.args, tt.mod) {
				reason, _ := r.msg["reason"].(string)
				if r.status != 400 || r.code() != "INVALID-ARGUMENT" || r.msg["name"] != tt.arg ||
					!strings.HasPrefix(reason, "conflicting credentials") {
					t.Fatalf("got %d %s", r.status, r.raw)
				}
			}
		})
	}
	t.Run("WebSocket handshake with two key headers", func(t *testing.T) {
		u := "wss" + strings.TrimPrefix(e.srv.URL, "https") + "/api/ws"
		c, res, err := websocket.Dial(t.Context(), u, &websocket.DialOptions{HTTPClient: e.srv.Client(),
			HTTPHeader: http.Header{"Svc-Authorization": {k, bobKey}}})
		if err == nil {
			c.CloseNow()
			t.Fatal("the handshake was accepted")
		}
		if res == nil || res.StatusCode != 400 {
			t.Fatalf("handshake answered %v", res)
		}
	})
	t.Run("WebSocket call with a session and a key of two users", func(t *testing.T) {
		w := e.dialWS(nil, "")
		if m := w.call("whoami", map[string]any{"_session": s, "_key": bobKey}); m["error"] != "INVALID-ARGUMENT" {
			t.Fatalf("got %v", m)
		}
	})
	t.Run("the same token twice, or two tokens of one user", func(t *testing.T) {
		for _, mod := range []func(*http.Request){
			both(cookie(s), cookie(s)),
			func(r *http.Request) { r.Header.Add("Svc-Authorization", k); r.Header.Add("Svc-Authorization", k) },
			both(cookie(s), header("Svc-Authorization", k2)),
		} {
			if r := e.get("whoami", nil, mod); !r.ok() {
				t.Fatalf("got %d %s", r.status, r.raw)
			}
		}
	})
}

// TestSecretAnswersNotStored checks that the answers carrying a session ID or a key say so to
// caches, and that answers are not to be sniffed.
func TestSecretAnswersNotStored(t *testing.T) {
	t.Parallel()
	e := newEnv(t, auth.NewMemoryStore())
	login := e.post("login", map[string]any{"user": "admin", "password": adminPassword}, nil)
	key := e.post("create-api-key", map[string]any{"name": "ci", "_session": login.result()}, nil)
	who := e.get("whoami", withSession(login.result()), nil)
	for name, r := range map[string]response{"login": login, "create-api-key": key} {
		if !r.ok() || r.header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: %d Cache-Control %q", name, r.status, r.header.Get("Cache-Control"))
		}
	}
	if who.header.Get("Cache-Control") == "no-store" {
		t.Errorf("whoami answered no-store")
	}
	for name, r := range map[string]response{"login": login, "whoami": who, "error": e.get("whoami", nil, nil)} {
		if r.header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: X-Content-Type-Options %q", name, r.header.Get("X-Content-Type-Options"))
		}
	}
}

// TestCallLogNamesUserAndClient checks that the per-call log line says who called and from
// where, and never the token.
func TestCallLogNamesUserAndClient(t *testing.T) {
	t.Parallel()
	e := newEnv(t, auth.NewMemoryStore())
	s := e.login("admin", adminPassword)
	if r := e.get("whoami", withSession(s), nil); !r.ok() {
		t.Fatal(r.raw)
	}
	calls := e.logs.FilterField(zap.String("function", "whoami")).All()
	if len(calls) == 0 {
		t.Fatal("no call line for whoami")
	}
	line := calls[len(calls)-1].ContextMap()
	if line["user"] != "admin" || line["client"] != "127.0.0.1" {
		t.Fatalf("call line %v", line)
	}
	if strings.Contains(logText(t, e.logs), s[len("session:"):]) {
		t.Fatal("the session ID is in the log")
	}
}
