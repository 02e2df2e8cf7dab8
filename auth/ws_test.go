package auth_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
	"github.com/fnapi/fnapi/auth"
)

// wsConn is a WebSocket connection to the env's server, with the handshake's headers.
type wsConn struct {
	t    *testing.T
	c    *websocket.Conn
	next int
}

func (e *env) dialWS(header http.Header, query string) *wsConn {
	e.t.Helper()
	u := "wss" + strings.TrimPrefix(e.srv.URL, "https") + "/api/ws" + query
	c, _, err := websocket.Dial(e.t.Context(), u, &websocket.DialOptions{HTTPClient: e.srv.Client(), HTTPHeader: header})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { c.CloseNow() })
	return &wsConn{t: e.t, c: c}
}

// call makes one call on the connection and returns its answer.
func (w *wsConn) call(fn string, args map[string]any) map[string]any {
	w.t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	w.next++
	ctx := context.Background()
	if err := wsjson.Write(ctx, w.c, map[string]any{"id": w.next, "call": fn, "args": args}); err != nil {
		w.t.Fatal(err)
	}
	var m map[string]any
	if err := wsjson.Read(ctx, w.c, &m); err != nil {
		w.t.Fatal(err)
	}
	if m["id"] != strconv.Itoa(w.next) {
		w.t.Fatalf("answer to another call: %v", m)
	}
	return m
}

func wsUser(m map[string]any) string {
	id, _ := m["result"].(map[string]any)
	s, _ := id["user"].(string)
	return s
}

func TestWebSocketTokens(t *testing.T) {
	t.Parallel()
	e := newEnv(t, auth.NewMemoryStore())
	s := e.login("admin", adminPassword)
	k := e.createKey(s, "ci")
	if r := e.get("create-user", map[string]any{"user": "bob", "password": "bob's password", "_session": s}, nil); !r.ok() {
		t.Fatal(r.raw)
	}
	bobKey := e.createKey(e.login("bob", "bob's password"), "ci")
	tests := []struct {
		name   string
		header http.Header
		query  string
	}{
		{"header at the handshake", http.Header{"Svc-Authorization": {k}}, ""},
		{"cookie at the handshake", http.Header{"Cookie": {"Svc-Session=" + s}}, ""},
		{"_key in the URL", nil, "?_key=" + k},
		{"_session in the URL", nil, "?_session=" + s},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := e.dialWS(tt.header, tt.query)
			for i := 0; i < 2; i++ { // the token holds for every call of the connection
				if m := w.call("whoami", nil); wsUser(m) != "admin" {
					t.Fatalf("call %d: %v", i, m)
				}
			}
			if m := w.call("whoami", map[string]any{"_key": bobKey}); wsUser(m) != "bob" {
				t.Fatalf("a call's own token: %v", m)
			}
			if m := w.call("whoami", nil); wsUser(m) != "admin" {
				t.Fatalf("a call's token outlived the call: %v", m)
			}
		})
	}
	t.Run("no token", func(t *testing.T) {
		w := e.dialWS(nil, "")
		if m := w.call("whoami", nil); m["error"] != "API-AUTHENTICATION-NEEDED" || m["path"] != "whoami" {
			t.Fatalf("anonymous: %v", m)
		}
		if m := w.call("whoami", map[string]any{"_session": s}); wsUser(m) != "admin" {
			t.Fatalf("token in args: %v", m)
		}
		if m := w.call("echo", map[string]any{"a": 1}); m["type"] != "result" {
			t.Fatalf("public function: %v", m)
		}
	})
	t.Run("create-api-key needs a session", func(t *testing.T) {
		w := e.dialWS(http.Header{"Svc-Authorization": {k}}, "")
		if m := w.call("create-api-key", map[string]any{"name": "ws"}); m["error"] != "API-AUTHENTICATION-NEEDED" {
			t.Fatalf("with a key: %v", m)
		}
		if m := w.call("create-api-key", map[string]any{"name": "ws", "_session": s}); !strings.HasPrefix(m["result"].(string), "secret:") {
			t.Fatalf("with a session: %v", m)
		}
	})
	t.Run("revocation ends the connection's token on the next call", func(t *testing.T) {
		w := e.dialWS(http.Header{"Svc-Authorization": {bobKey}}, "")
		if m := w.call("whoami", nil); wsUser(m) != "bob" {
			t.Fatal(m)
		}
		if m := w.call("delete-user", map[string]any{"user": "bob", "_key": k}); m["result"] != true {
			t.Fatal(m)
		}
		if m := w.call("whoami", nil); m["error"] != "API-AUTHENTICATION-NEEDED" {
			t.Fatalf("after delete-user: %v", m)
		}
	})
}
