package auth_test

import (
	"bytes"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/fnapi/fnapi/auth"
)

// TestCookieJarClient checks that a client that is no browser (curl -b/-c, a Python
// requests.Session, any cookie jar: neither Origin nor Sec-Fetch-Site) gets the session cookie
// from login and calls with it alone, over HTTP and WebSocket, functions that change something
// and read-only ones; and that a browser's marks still decide for the requests it makes.
func TestCookieJarClient(t *testing.T) {
	t.Parallel()
	e := newEnv(t, auth.NewMemoryStore())
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	cl := *e.srv.Client()
	cl.Jar = jar
	base, _ := url.Parse(e.srv.URL + "/api/")
	call := func(method, fn string, mod func(*http.Request)) response {
		t.Helper()
		var req *http.Request
		if method == "POST" {
			req, _ = http.NewRequest("POST", e.srv.URL+"/api/"+fn, bytes.NewReader([]byte(`{}`)))
			req.Header.Set("Content-Type", "application/json")
		} else {
			req, _ = http.NewRequest("GET", e.srv.URL+"/api/"+fn, nil)
		}
		if mod != nil {
			mod(req)
		}
		return e.doWith(&cl, req)
	}
	req, _ := http.NewRequest("POST", e.srv.URL+"/api/login",
		strings.NewReader(`{"user": "admin", "password": "`+adminPassword+`"}`))
	req.Header.Set("Content-Type", "application/json")
	if r := e.doWith(&cl, req); !r.ok() || r.header.Get("Set-Cookie") == "" {
		t.Fatalf("login without browser headers: %d %s, Set-Cookie %q", r.status, r.raw, r.header.Get("Set-Cookie"))
	}
	cs := jar.Cookies(base)
	if len(cs) != 1 || cs[0].Name != "Svc-Session" || !strings.HasPrefix(cs[0].Value, "session:") {
		t.Fatalf("the jar holds %v", cs)
	}
	for _, method := range []string{"GET", "POST"} {
		for _, fn := range []string{"touch", "whoami"} {
			if r := call(method, fn, nil); !r.ok() {
				t.Errorf("%s %s with the jar's cookie: %d %s", method, fn, r.status, r.raw)
			}
		}
	}

	// A browser's requests keep the same-site rule.
	own := e.srv.URL
	for _, tt := range []struct {
		name string
		fn   string
		mod  func(*http.Request)
		ok   bool
	}{
		{"cross-site, read-only", "whoami", header("Sec-Fetch-Site", "cross-site"), false},
		{"foreign Origin, changing", "touch", header("Origin", "https://evil.example"), false},
		{"same-site, changing", "touch", header("Sec-Fetch-Site", "same-site"), false},
		{"same-site, read-only", "whoami", header("Sec-Fetch-Site", "same-site"), true},
		{"http:// Origin on https, read-only", "whoami", header("Origin", "http"+strings.TrimPrefix(own, "https")), false},
		{"own Origin, changing", "touch", header("Origin", own), true},
	} {
		if r := call("POST", tt.fn, tt.mod); r.ok() != tt.ok {
			t.Errorf("%s: %d %s, want ok=%v", tt.name, r.status, r.raw, tt.ok)
		}
	}

	// The WebSocket handshake without Origin, with the jar's cookie alone.
	u := "wss" + strings.TrimPrefix(e.srv.URL, "https") + "/api/ws"
	c, _, err := websocket.Dial(t.Context(), u, &websocket.DialOptions{HTTPClient: &cl})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	w := &wsConn{t: t, c: c}
	if m := w.call("touch", nil); m["result"] != "admin" {
		t.Fatalf("WebSocket, changing, with the jar's cookie: %v", m)
	}
	if m := w.call("whoami", nil); wsUser(m) != "admin" {
		t.Fatalf("WebSocket, read-only, with the jar's cookie: %v", m)
	}
	// A page of http://host is another origin: its handshake is refused.
	_, res, err := websocket.Dial(t.Context(), u, &websocket.DialOptions{HTTPClient: &cl,
		HTTPHeader: http.Header{"Origin": {"http" + strings.TrimPrefix(own, "https")}}})
	if err == nil || res == nil || res.StatusCode != http.StatusForbidden {
		t.Fatalf("handshake with an http:// Origin on https: %v, %v", res, err)
	}
}
