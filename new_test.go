package fnapi_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
)

// TestNewRefuses checks that a server is refused at start-up, with a message naming the
// problem, when its registry serves nothing or breaks its own versions.
func TestNewRefuses(t *testing.T) {
	t.Parallel()
	if _, err := fnapi.New(registry.New()); err == nil || !strings.Contains(err.Error(), "no function") {
		t.Errorf("empty registry: %v", err)
	}
	reg := registry.New()
	reg.MustRegister("report", func(struct {
		From string `json:"from"`
	}) {
	}, registry.Until("1.1"))
	reg.MustRegister("report", func(struct {
		From string `json:"from"`
		To   string `json:"to"`
	}) {
	}, registry.Since("1.1"))
	_, err := fnapi.New(reg)
	if err == nil || !strings.Contains(err.Error(), `"report"`) || !strings.Contains(err.Error(), `adds required argument "to"`) {
		t.Fatalf("a minor step adding a required argument: %v", err)
	}
}

// TestOptionsCompose: options set their own settings whatever their order, so that none undoes
// another (the names and a limit, given before and after each other, both hold).
func TestOptionsCompose(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	reg.MustRegister("n", func(in map[string]any) int { return len(in) }, registry.Requires(decl.Public))
	orders := map[string][]fnapi.Option{
		"names first": {fnapi.WithNames(decl.Names{KeyHeader: "X-Key"}), fnapi.WithMaxArgs(1)},
		"names last":  {fnapi.WithMaxArgs(1), fnapi.WithNames(decl.Names{KeyHeader: "X-Key"})},
	}
	for name, opts := range orders {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h, err := fnapi.New(reg, opts...)
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewTLSServer(h)
			t.Cleanup(srv.Close)
			res, err := srv.Client().Get(srv.URL + "/n?a=1&b=2")
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusRequestEntityTooLarge {
				t.Errorf("two arguments past WithMaxArgs(1): status %d, want 413", res.StatusCode)
			}
			req, _ := http.NewRequest("GET", srv.URL+"/n", nil)
			req.Header.Add("X-Key", "a")
			req.Header.Add("X-Key", "b")
			res, err = srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusBadRequest {
				t.Errorf("two renamed key headers: status %d, want 400 (the header is read)", res.StatusCode)
			}
		})
	}
}
