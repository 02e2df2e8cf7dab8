package auth_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket/wsjson"
	"github.com/fnapi/fnapi/auth"
)

// nextMessage reads the next message of a running stream.
type nextMessage func(t *testing.T) map[string]any

// lastMessage reads the messages of a stream until it ends, and returns its last one.
func lastMessage(t *testing.T, next nextMessage) map[string]any {
	t.Helper()
	for {
		if m := next(t); m["type"] != "chunk" {
			return m
		}
	}
}

// startNDJSON starts a follow stream over HTTP with the token set by mod and waits for its
// first chunk.
func (e *env) startNDJSON(t *testing.T, mod func(*http.Request)) nextMessage {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "POST", e.srv.URL+"/api/stream/follow", strings.NewReader("{}"))
	req.Header.Set("Content-Type", "application/json")
	mod(req)
	res, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	if !res.Uncompressed { // net/http asked for gzip and decodes it: the token's end must get through
		t.Fatal("the stream did not come gzipped")
	}
	sc := bufio.NewScanner(res.Body)
	next := func(t *testing.T) map[string]any {
		t.Helper()
		if !sc.Scan() {
			t.Fatalf("the stream broke off: %v", sc.Err())
		}
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	if m := next(t); m["type"] != "chunk" {
		t.Fatalf("first message %v", m)
	}
	return next
}

// startWS starts a follow stream over WebSocket with the handshake's header and waits for its
// first chunk.
func (e *env) startWS(t *testing.T, header http.Header) nextMessage {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	w := e.dialWS(header, "")
	if err := wsjson.Write(ctx, w.c, map[string]any{"id": "f", "stream": "follow", "args": map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	next := func(t *testing.T) map[string]any {
		t.Helper()
		var m map[string]any
		if err := wsjson.Read(ctx, w.c, &m); err != nil {
			t.Fatalf("the connection broke off: %v", err)
		}
		return m
	}
	if m := next(t); m["type"] != "chunk" {
		t.Fatalf("first message %v", m)
	}
	return next
}

// TestTokenEndEndsStreams checks that revoking a key, logging out, a session's expiry and
// deleting a user end the streams started with them, over both transports, with
// API-AUTHENTICATION-NEEDED; other streams run on.
func TestTokenEndEndsStreams(t *testing.T) {
	t.Parallel()
	e := newEnv(t, auth.NewMemoryStore())
	admin := e.login("admin", adminPassword)
	ws := func(mod func(*http.Request)) http.Header {
		r, _ := http.NewRequest("GET", "/", nil)
		mod(r)
		return r.Header
	}
	for _, tr := range []string{"ndjson", "websocket"} {
		start := func(t *testing.T, mod func(*http.Request)) nextMessage {
			if tr == "ndjson" {
				return e.startNDJSON(t, mod)
			}
			return e.startWS(t, ws(mod))
		}
		t.Run(tr, func(t *testing.T) {
			tests := []struct {
				name string
				// token makes the stream's token; end ends it.
				run func(t *testing.T) (token func(*http.Request), end func())
			}{
				{"revoke-api-key", func(t *testing.T) (func(*http.Request), func()) {
					k := e.createKey(admin, "follow-"+tr)
					return header("Svc-Authorization", k), func() {
						if r := e.post("revoke-api-key", map[string]any{"name": "follow-" + tr, "_session": admin}, nil); !r.ok() {
							t.Fatal(r.raw)
						}
					}
				}},
				{"logout", func(t *testing.T) (func(*http.Request), func()) {
					s := e.login("admin", adminPassword)
					return both(cookie(s), sameOrigin), func() {
						if r := e.post("logout", map[string]any{"_session": s}, nil); !r.ok() {
							t.Fatal(r.raw)
						}
					}
				}},
				{"session expiry", func(t *testing.T) (func(*http.Request), func()) {
					s := e.login("admin", adminPassword)
					return both(cookie(s), sameOrigin), func() { e.clock.advance(25 * time.Hour) }
				}},
				{"delete-user", func(t *testing.T) (func(*http.Request), func()) {
					if r := e.post("create-user", map[string]any{"user": "bob", "password": "bob's password", "_session": admin}, nil); !r.ok() {
						t.Fatal(r.raw)
					}
					k := e.createKey(e.login("bob", "bob's password"), "follow")
					return header("Svc-Authorization", k), func() {
						if r := e.post("delete-user", map[string]any{"user": "bob", "_session": admin}, nil); !r.ok() {
							t.Fatal(r.raw)
						}
					}
				}},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					if tt.name == "session expiry" {
						admin = e.login("admin", adminPassword) // the clock moves past the old one
						defer func() { admin = e.login("admin", adminPassword) }()
					}
					other := e.createKey(admin, "other-"+tr+"-"+strings.ReplaceAll(tt.name, " ", "-"))
					token, end := tt.run(t)
					ended := start(t, token)
					bystander := start(t, header("Svc-Authorization", other))
					end()
					m := lastMessage(t, ended)
					if m["type"] != "error" || m["error"] != "API-AUTHENTICATION-NEEDED" || m["path"] != "follow" {
						t.Fatalf("the stream ended with %v", m)
					}
					if tt.name != "session expiry" { // the other stream's token lives on
						for i := 0; i < 3; i++ {
							if m := bystander(t); m["type"] != "chunk" {
								t.Fatalf("the other stream ended with %v", m)
							}
						}
					}
				})
			}
		})
	}
}

// TestStoreRevocationEndsStreams checks that a key revoked through another server sharing the
// store ends the streams started with it here, once the cache TTL has passed.
func TestStoreRevocationEndsStreams(t *testing.T) {
	t.Parallel()
	e := newEnv(t, auth.NewMemoryStore())
	k := e.createKey(e.login("admin", adminPassword), "elsewhere")
	next := e.startNDJSON(t, header("Svc-Authorization", k))
	if _, err := e.store.DeleteKey(t.Context(), "admin", "elsewhere"); err != nil {
		t.Fatal(err)
	}
	e.clock.advance(3 * time.Second) // past the cache TTL (2 s)
	if m := lastMessage(t, next); m["error"] != "API-AUTHENTICATION-NEEDED" {
		t.Fatalf("the stream ended with %v", m)
	}
}

// TestForgetEndsStreams checks that a key revoked through another server, which this one is told
// of (ForgetUser), ends the streams started with it here without waiting for the cache TTL.
func TestForgetEndsStreams(t *testing.T) {
	t.Parallel()
	e := newEnv(t, auth.NewMemoryStore())
	k := e.createKey(e.login("admin", adminPassword), "elsewhere")
	next := e.startNDJSON(t, header("Svc-Authorization", k))
	if _, err := e.store.DeleteKey(t.Context(), "admin", "elsewhere"); err != nil {
		t.Fatal(err)
	}
	e.a.ForgetUser("admin") // the clock stays: only the forgetting can end the stream
	if m := lastMessage(t, next); m["error"] != "API-AUTHENTICATION-NEEDED" {
		t.Fatalf("the stream ended with %v", m)
	}
}
