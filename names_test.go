package fnapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
)

// TestRenamedNames: a server that renames the session cookie and the key header and mounts the
// API elsewhere sets them once (fnapi.WithNames): login sets the renamed cookie, the transport
// reads it and the renamed header, and the OpenAPI document names all three.
func TestRenamedNames(t *testing.T) {
	t.Parallel()
	a, err := auth.New(auth.NewMemoryStore(), auth.WithArgon2(auth.Argon2{Memory: 64, Iterations: 1, Parallelism: 1}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close(context.Background()) })
	if err := a.CreateUser(context.Background(), "ann", "ann's password", authapi.RoleUser); err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	fnapi.MustRegisterBuiltins(reg)
	a.MustRegister(reg)
	h, err := fnapi.New(reg, fnapi.WithInterceptors(a.Interceptor()),
		fnapi.WithNames(decl.Names{SessionCookie: "sid", KeyHeader: "X-Key", MountPath: "/v2/rpc"}))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/v2/rpc/", http.StripPrefix("/v2/rpc", h))
	srv := httptest.NewTLSServer(mux)
	t.Cleanup(srv.Close)

	call := func(fn string, args map[string]string, set func(*http.Request)) (*http.Response, map[string]any) {
		t.Helper()
		q := url.Values{}
		for k, v := range args {
			b, _ := json.Marshal(v)
			q.Set(k, string(b))
		}
		req, _ := http.NewRequest("GET", srv.URL+"/v2/rpc/"+fn+"?"+q.Encode(), nil)
		if set != nil {
			set(req)
		}
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var msg map[string]any
		if err := json.NewDecoder(res.Body).Decode(&msg); err != nil {
			t.Fatal(err)
		}
		return res, msg
	}

	res, msg := call("login", map[string]string{"user": "ann", "password": "ann's password"},
		func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "same-origin") })
	cookies := res.Cookies()
	if msg["type"] != "result" || len(cookies) != 1 || cookies[0].Name != "sid" {
		t.Fatalf("login: %v, cookies %v; want the cookie sid", msg, cookies)
	}
	if _, msg = call("whoami", nil, func(r *http.Request) { r.AddCookie(cookies[0]) }); msg["type"] != "result" {
		t.Fatalf("whoami with the cookie sid: %v", msg)
	}
	if _, msg = call("whoami", nil, func(r *http.Request) { r.AddCookie(&http.Cookie{Name: "Svc-Session", Value: cookies[0].Value}) }); msg["error"] != "API-AUTHENTICATION-NEEDED" {
		t.Fatalf("whoami with the default cookie name: %v", msg)
	}
	var key string
	if _, msg = call("create-api-key", map[string]string{"name": "k", "_session": cookies[0].Value}, nil); msg["type"] == "result" {
		key, _ = msg["result"].(string)
	}
	if _, msg = call("whoami", nil, func(r *http.Request) { r.Header.Set("X-Key", key) }); msg["type"] != "result" {
		t.Fatalf("whoami with the header X-Key: %v", msg)
	}

	_, msg = call("doc", map[string]string{"format": "openapi"}, nil)
	var d struct {
		Servers []struct {
			Variables map[string]struct{ Default string }
		}
		Components struct {
			SecuritySchemes map[string]struct{ In, Name string }
		}
	}
	b, _ := json.Marshal(msg["result"])
	if err := json.Unmarshal(b, &d); err != nil || len(d.Servers) == 0 {
		t.Fatalf("openapi: %v %s", err, b)
	}
	if base := d.Servers[0].Variables["base"].Default; base != "/v2/rpc" {
		t.Errorf("OpenAPI base %q, want /v2/rpc", base)
	}
	names := map[string]bool{}
	for _, s := range d.Components.SecuritySchemes {
		names[s.In+":"+s.Name] = true
	}
	if !names["cookie:sid"] || !names["header:X-Key"] || names["cookie:Svc-Session"] || names["header:Svc-Authorization"] {
		t.Errorf("OpenAPI security schemes %v, want the cookie sid and the header X-Key", names)
	}
	if strings.Contains(string(b), "Svc-Session") {
		t.Errorf("the OpenAPI document still names Svc-Session")
	}
}
