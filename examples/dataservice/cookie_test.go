package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// cookieClient is a client of the service that is no browser: a cookie jar, and neither Origin
// nor Sec-Fetch-Site, as curl -b/-c or Python's requests.Session.
type cookieClient struct {
	t   *testing.T
	api string
	hc  *http.Client
}

func newCookieClient(t *testing.T, base string) *cookieClient {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	hc := insecure()
	hc.Jar = jar
	return &cookieClient{t: t, api: base + "/api", hc: hc}
}

// call POSTs args to fn with the headers set by mod, and returns the answer's status and message.
func (c *cookieClient) call(fn string, args map[string]any, mod func(*http.Request)) (int, map[string]any) {
	c.t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	b, _ := json.Marshal(args)
	req, _ := http.NewRequest("POST", c.api+"/"+fn, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	if mod != nil {
		mod(req)
	}
	res, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(res.Body).Decode(&m); err != nil {
		c.t.Fatalf("%s: %v", fn, err)
	}
	return res.StatusCode, m
}

func setHeader(name, value string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Set(name, value) }
}

// TestCookieCarrier checks that the session cookie the interface lists as a carrier works for a
// client that is no browser (a Go cookie jar, curl -b/-c): login sets it, and it alone calls a
// function that changes something and a read-only one, over HTTP and WebSocket; while the
// requests a browser marks keep the same-site rule: cross-site refused, a same-site page of
// another origin refused for changes and allowed for reading. doc marks the read-only functions.
func TestCookieCarrier(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the service")
	}
	data := t.TempDir()
	p := startService(t, "-addr", "127.0.0.1:0", "-data", data)
	pw, err := os.ReadFile(filepath.Join(data, "admin-password"))
	if err != nil {
		t.Fatal(err)
	}
	password := strings.TrimSpace(string(pw))
	c := newCookieClient(t, p.url)
	if st, m := c.call("login", map[string]any{"user": "admin", "password": password}, nil); st != 200 {
		t.Fatalf("login: %d %v", st, m)
	}
	base, _ := url.Parse(c.api + "/")
	if cs := c.hc.Jar.Cookies(base); len(cs) != 1 || cs[0].Name != "Svc-Session" {
		t.Fatalf("login set no session cookie for a client that is no browser: the jar holds %v", cs)
	}
	ok := func(what string, st int, m map[string]any) {
		t.Helper()
		if st != 200 || m["type"] != "result" {
			t.Fatalf("%s: %d %v", what, st, m)
		}
	}
	refused := func(what string, st int, m map[string]any) {
		t.Helper()
		if st != 401 || m["error"] != "API-AUTHENTICATION-NEEDED" {
			t.Fatalf("%s: %d %v, want 401 API-AUTHENTICATION-NEEDED", what, st, m)
		}
	}
	st, m := c.call("create-dashboard", map[string]any{"title": "From a cookie jar"}, nil)
	ok("create-dashboard with the cookie alone", st, m)
	st, m = c.call("list-dashboards", nil, nil)
	ok("list-dashboards with the cookie alone", st, m)

	// What a browser marks keeps the same-site rule.
	st, m = c.call("list-dashboards", nil, setHeader("Sec-Fetch-Site", "cross-site"))
	refused("cross-site, read-only", st, m)
	st, m = c.call("create-dashboard", map[string]any{"title": "Forged"}, setHeader("Sec-Fetch-Site", "same-site"))
	refused("same-site, changing", st, m)
	for _, fn := range []string{"list-dashboards", "query", "get-config", "list-fields"} {
		args := map[string]any{}
		if fn == "query" {
			args["expr"] = "records"
		}
		st, m := c.call(fn, args, setHeader("Sec-Fetch-Site", "same-site"))
		ok("same-site, read-only "+fn, st, m)
	}
	st, m = c.call("list-dashboards", nil, setHeader("Origin", "http"+strings.TrimPrefix(p.url, "https")))
	refused("http:// Origin on https", st, m)

	// The WebSocket handshake without Origin, with the jar's cookie.
	ws, _, err := websocket.Dial(t.Context(), "wss"+strings.TrimPrefix(c.api, "https")+"/ws",
		&websocket.DialOptions{HTTPClient: c.hc})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	for i, call := range []map[string]any{
		{"id": 1, "call": "create-dashboard", "args": map[string]any{"title": "Over the WebSocket"}},
		{"id": 2, "call": "list-dashboards", "args": map[string]any{}},
	} {
		if err := wsjson.Write(t.Context(), ws, call); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := wsjson.Read(t.Context(), ws, &m); err != nil {
			t.Fatal(err)
		}
		if m["type"] != "result" {
			t.Fatalf("WebSocket call %d (%s) with the cookie alone: %v", i+1, call["call"], m)
		}
	}

	// doc marks every function that changes nothing read-only, and none other.
	st, m = c.call("doc", nil, nil)
	ok("doc", st, m)
	res, _ := m["result"].(map[string]any)
	fns, _ := res["functions"].([]any)
	if len(fns) == 0 {
		t.Fatalf("doc lists no functions: %v", m)
	}
	for _, f := range fns {
		f, _ := f.(map[string]any)
		name, _ := f["name"].(string)
		if f["auth"] == "none" {
			continue // public: no cookie rule
		}
		want := name == "query" || name == "whoami" || name == "collector-status" || name == "alert-history" ||
			strings.HasPrefix(name, "list-") || strings.HasPrefix(name, "get-")
		if got := f["read_only"] == true; got != want {
			t.Errorf("doc: %s read_only %v, want %v", name, got, want)
		}
	}
}

// TestCurlCookieJar runs curl as a user would: -c to keep the cookie login sets, -b to send
// it to a function that changes something and to a read-only one.
func TestCurlCookieJar(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the service")
	}
	curl := testenv.Need(t, "curl", "curl")
	data := t.TempDir()
	p := startService(t, "-addr", "127.0.0.1:0", "-data", data)
	pw, err := os.ReadFile(filepath.Join(data, "admin-password"))
	if err != nil {
		t.Fatal(err)
	}
	jar := filepath.Join(t.TempDir(), "cookies.txt")
	run := func(args ...string) map[string]any {
		t.Helper()
		out, err := exec.CommandContext(t.Context(), curl, append([]string{"-sS", "-k"}, args...)...).Output()
		if err != nil {
			t.Fatalf("curl %v: %v", args, err)
		}
		var m map[string]any
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatalf("curl %v: %q", args, out)
		}
		return m
	}
	login, _ := json.Marshal(map[string]string{"user": "admin", "password": strings.TrimSpace(string(pw))})
	if m := run("-c", jar, "-H", "Content-Type: application/json", "-d", string(login), p.url+"/api/login"); m["type"] != "result" {
		t.Fatalf("login: %v", m)
	}
	if b, _ := os.ReadFile(jar); !strings.Contains(string(b), "Svc-Session") {
		t.Fatalf("curl -c kept no session cookie:\n%s", b)
	}
	if m := run("-b", jar, p.url+"/api/create-dashboard?title=curl"); m["type"] != "result" {
		t.Fatalf("create-dashboard with curl -b: %v", m)
	}
	m := run("-b", jar, p.url+"/api/list-dashboards")
	if l, _ := m["result"].([]any); len(l) != 1 {
		t.Fatalf("list-dashboards with curl -b: %v", m)
	}
}
