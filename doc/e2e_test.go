package doc_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/internal/apitest"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/transport"
)

// newServer serves the sample API under /api over real TLS. Every caller counts as signed in,
// so that the functions that need a token answer too.
func newServer(t *testing.T) *httptest.Server {
	t.Helper()
	signedIn := func(next registry.Handler) registry.Handler {
		return func(ctx context.Context, c *registry.Call) (any, error) {
			c.Identity = "tester"
			return next(ctx, c)
		}
	}
	h, err := transport.New(sample(t), transport.Config{Interceptors: []registry.Interceptor{signedIn}})
	if err != nil {
		t.Fatal(err)
	}
	srv := apitest.Serve(t, h)
	return srv
}

// message is one response message, and the HTTP status it came with.
type message struct {
	status int
	Type   string          `json:"type"`
	Result json.RawMessage `json:"result"`
	Chunk  json.RawMessage `json:"chunk"`
	Error  string          `json:"error"`
}

func call(t *testing.T, srv *httptest.Server, method, path, body string) message {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	m := message{status: res.StatusCode}
	if err := json.NewDecoder(res.Body).Decode(&m); err != nil {
		t.Fatalf("%s %s: not a JSON message: %v", method, path, err)
	}
	return m
}

func TestDocOverHTTPS(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	tests := []struct {
		name, method, path, body string
		version                  string // of the description
		hasCount                 bool   // count appears in 1.1
	}{
		{"latest", "GET", "/api/doc", "", "1.1", true},
		{"1.0", "GET", "/api/1.0/doc", "", "1.0", false},
		{"1.1", "GET", "/api/1.1/doc", "", "1.1", true},
		{"POST", "POST", "/api/1.0/doc", `{"format":"fnapi"}`, "1.0", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := call(t, srv, tt.method, tt.path, tt.body)
			if m.status != 200 || m.Type != "result" {
				t.Fatalf("status %d, message %+v", m.status, m)
			}
			var d struct {
				Version   string
				Versions  []string
				Functions []struct{ Name string }
				Errors    []struct{ Code string }
			}
			if err := json.Unmarshal(m.Result, &d); err != nil {
				t.Fatal(err)
			}
			count := false
			for _, f := range d.Functions {
				count = count || f.Name == "count"
			}
			if d.Version != tt.version || count != tt.hasCount || len(d.Versions) != 2 || len(d.Errors) == 0 {
				t.Errorf("version %s (want %s), count listed %v (want %v), versions %v, %d error codes",
					d.Version, tt.version, count, tt.hasCount, d.Versions, len(d.Errors))
			}
			validate(t, "fnapi", m.Result)
		})
	}
}

func TestOpenAPIOverHTTPS(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	tests := []struct {
		name, method, path, body string
		version                  string
	}{
		{"latest, unquoted", "GET", "/api/doc?format=openapi", "", "1.1"},
		{"1.0, JSON value", "GET", `/api/1.0/doc?format="openapi"`, "", "1.0"},
		{"POST", "POST", "/api/1.1/doc", `{"format":"openapi"}`, "1.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := call(t, srv, tt.method, tt.path, tt.body)
			if m.status != 200 || m.Type != "result" {
				t.Fatalf("status %d, message %+v", m.status, m)
			}
			var d struct {
				OpenAPI string
				Info    struct{ Version string }
			}
			if err := json.Unmarshal(m.Result, &d); err != nil {
				t.Fatal(err)
			}
			if d.OpenAPI != "3.1.0" || d.Info.Version != tt.version {
				t.Errorf("openapi %q version %q, want 3.1.0 %s", d.OpenAPI, d.Info.Version, tt.version)
			}
			validate(t, "openapi", m.Result)
		})
	}
}

func TestDocRefusals(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	tests := []struct {
		path   string
		status int
		code   string
	}{
		{"/api/doc?format=yaml", 400, "INVALID-ARGUMENT"},
		{"/api/doc?depth=2", 400, "UNKNOWN-ARGUMENTS"},
		{"/api/9.9/doc", 404, "UNKNOWN-VERSION"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			m := call(t, srv, "GET", tt.path, "")
			if m.status != tt.status || m.Type != "error" || m.Error != tt.code {
				t.Errorf("status %d %+v, want %d %s", m.status, m, tt.status, tt.code)
			}
		})
	}
}

// TestAnswersFitTheDescription calls the functions and checks each answer against the schema
// doc gives for it.
func TestAnswersFitTheDescription(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	type value struct {
		Function string          `json:"function"`
		Result   json.RawMessage `json:"result,omitempty"`
		Chunk    json.RawMessage `json:"chunk,omitempty"`
	}
	var values []value
	for _, c := range []struct{ fn, path string }{
		{"greet", "/api/greet?name=ann&tags=" + `["a"]`},
		{"add", "/api/add?a=2&b=3"},
		{"count", "/api/count?to=3"},
		{"find", "/api/find?name=hello"},
		{"forget", "/api/forget"},
	} {
		m := call(t, srv, "GET", c.path, "")
		if m.Type != "result" {
			t.Fatalf("%s: %+v", c.path, m)
		}
		values = append(values, value{Function: c.fn, Result: m.Result})
	}
	res, err := srv.Client().Get(srv.URL + "/api/stream/count?to=2")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		var m message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("stream line %q: %v", sc.Text(), err)
		}
		if m.Type == "chunk" {
			values = append(values, value{Function: "count", Chunk: m.Chunk})
		}
	}
	if len(values) != 7 {
		t.Fatalf("%d values, want 5 results and 2 chunks", len(values))
	}
	d := call(t, srv, "GET", "/api/doc", "")
	b, err := json.Marshal(map[string]any{"doc": d.Result, "values": values})
	if err != nil {
		t.Fatal(err)
	}
	validate(t, "values", b)
}
