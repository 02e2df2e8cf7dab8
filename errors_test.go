package fnapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/doc"
	"github.com/fnapi/fnapi/registry"
)

// TestErrorAttributesDocumented provokes the framework's errors over HTTP and checks that every
// attribute an error message carries is one that doc describes for its code, so that the
// description clients read matches what they receive.
func TestErrorAttributesDocumented(t *testing.T) {
	t.Parallel()
	described := map[string]map[string]string{}
	status := map[string]int{}
	for _, c := range doc.Catalogue() {
		described[string(c.Code)] = c.Attributes
		status[string(c.Code)] = c.Status
	}
	reg := registry.New()
	fnapi.MustRegisterBuiltins(reg)
	type greetArgs struct {
		Name  string `json:"name"`
		Times int    `json:"times,omitempty" jsonschema:"minimum=1"`
	}
	reg.MustRegister("greet", func(in greetArgs) string { return in.Name }, registry.Requires(decl.Public),
		registry.MaxBody(64))
	reg.MustRegister("secret", func() string { return "" })
	api, err := fnapi.New(reg, fnapi.WithMaxArgs(3))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewTLSServer(http.StripPrefix("/api", api))
	defer srv.Close()

	tests := []struct {
		name, method, path, contentType, body, want string
	}{
		{"too few", "GET", "/greet", "", "", "TOO-FEW-ARGUMENTS"},
		{"unknown argument", "GET", "/greet?name=a&x=1", "", "", "UNKNOWN-ARGUMENTS"},
		{"out of schema", "GET", "/greet?name=a&times=0", "", "", "INVALID-ARGUMENT"},
		{"given twice", "POST", "/greet?name=a", "application/json", `{"name":"b"}`, "INVALID-ARGUMENT"},
		{"bad URL encoding", "GET", "/greet?name=%zz", "", "", "INVALID-ARGUMENT"},
		{"body not an object", "POST", "/greet", "application/json", `[1]`, "INVALID-JSON"},
		{"body too large", "POST", "/greet", "application/json", `{"name":"` + strings.Repeat("a", 100) + `"}`, "REQUEST-TOO-LARGE"},
		{"too many arguments", "GET", "/echo?a=1&b=2&c=3&d=4", "", "", "REQUEST-TOO-LARGE"},
		{"unknown function", "GET", "/nope", "", "", "UNKNOWN-FUNCTION"},
		{"unknown version", "GET", "/9.9/greet", "", "", "UNKNOWN-VERSION"},
		{"method", "PUT", "/greet", "", "", "METHOD-NOT-ALLOWED"},
		{"media type", "POST", "/greet", "text/plain", "name", "UNSUPPORTED-MEDIA-TYPE"},
		{"no token", "GET", "/secret", "", "", "API-AUTHENTICATION-NEEDED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, srv.URL+"/api"+tt.path, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			res, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			var msg map[string]any
			if err := json.Unmarshal(b, &msg); err != nil || msg["error"] != tt.want {
				t.Fatalf("answer %s, want a %s error message", b, tt.want)
			}
			if res.StatusCode != status[tt.want] {
				t.Errorf("%s answered with status %d, its declaration says %d", tt.want, res.StatusCode, status[tt.want])
			}
			for name := range msg {
				if name == "type" || name == "error" {
					continue
				}
				if _, ok := described[tt.want][name]; !ok {
					t.Errorf("%s carries the attribute %q, which doc does not describe: %s", tt.want, name, b)
				}
			}
		})
	}
}
