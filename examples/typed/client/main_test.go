package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/typed/notes"
	"github.com/fnapi/fnapi/registry"
)

// TestRun runs the client's commands against a server that implements the declarations.
func TestRun(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	var (
		mu   sync.Mutex
		kept []notes.Note
	)
	registry.MustImplement(reg, notes.Add, func(_ context.Context, in notes.AddArgs) (notes.Note, error) {
		mu.Lock()
		defer mu.Unlock()
		kept = append(kept, notes.Note{ID: len(kept) + 1, Text: in.Text})
		return kept[len(kept)-1], nil
	})
	registry.MustImplement(reg, notes.List, func(context.Context, notes.ListArgs) ([]notes.Note, error) {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(kept), nil
	})
	api, err := fnapi.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewTLSServer(http.StripPrefix("/api", api))
	defer srv.Close()
	c, _ := client.New(srv.URL+"/api", client.WithHTTPClient(srv.Client()), client.WithDeclaredVersions())

	var out bytes.Buffer
	ctx := context.Background()
	for _, args := range [][]string{{"add", "buy milk"}, {"list"}} {
		if err := run(ctx, c, args, &out); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
	}
	if got := out.String(); got != "added note 1\n1\tbuy milk\n" {
		t.Fatalf("output %q", got)
	}
	if err := run(ctx, c, []string{"remove"}, &out); err == nil || !strings.Contains(err.Error(), "usage") {
		t.Fatalf("an unknown command: %v", err)
	}
}
