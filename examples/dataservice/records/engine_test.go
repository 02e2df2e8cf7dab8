package records_test

import (
	"context"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// opened is what the test engine's Open was called with.
type opened struct {
	records.Store
	url, cluster string
}

func init() {
	records.Register("enginetest", records.Engine{Name: "enginetest", Clusters: true,
		Open: func(_ context.Context, url, cluster string, _ ...records.Option) (records.Store, error) {
			return &opened{url: url, cluster: cluster}, nil
		}})
	records.Register("flat", records.Engine{Name: "flat",
		Open: func(_ context.Context, url, cluster string, _ ...records.Option) (records.Store, error) {
			return &opened{url: url}, nil
		}})
}

// TestEngineOf checks that a URL's scheme chooses its engine, any case, that a path without
// one (a Windows drive included) goes to the default engine, and that an unknown scheme is an
// error naming the engines there are.
func TestEngineOf(t *testing.T) {
	t.Parallel()
	for _, url := range []string{"enginetest://host:9000/db", "EngineTest:x", "enginetest:"} {
		if e, err := records.EngineOf(url); err != nil || e.Name != "enginetest" {
			t.Errorf("EngineOf(%q) = %v, %v; want enginetest", url, e, err)
		}
	}
	// This test binary links no engine of the default scheme (DuckDB).
	for _, url := range []string{"./data", "/var/lib/data", `C:\data`} {
		if _, err := records.EngineOf(url); err == nil || !strings.Contains(err.Error(), `no engine for "duckdb"`) {
			t.Errorf("EngineOf(%q) = %v, want the default engine's (none here)", url, err)
		}
	}
	_, err := records.EngineOf("mysql://host/db")
	if err == nil || !strings.Contains(err.Error(), `"mysql"`) || !strings.Contains(err.Error(), "enginetest, flat") {
		t.Errorf("EngineOf of an unknown scheme: %v", err)
	}
}

// TestOpenByScheme checks that Open hands the URL and the cluster to the engine of the URL's
// scheme, and refuses a cluster to an engine without clusters.
func TestOpenByScheme(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, e, err := records.Open(ctx, "enginetest://h/db", "c1")
	if o, ok := s.(*opened); err != nil || !ok || e.Name != "enginetest" || o.url != "enginetest://h/db" || o.cluster != "c1" {
		t.Fatalf("Open = %+v, %v, %v", s, e, err)
	}
	if _, _, err := records.Open(ctx, "flat:x", "c1"); err == nil || !strings.Contains(err.Error(), "no cluster") {
		t.Errorf("Open of a cluster on an engine without: %v", err)
	}
}

// TestRegisterTwice checks that a scheme registered twice panics, as database/sql.Register
// does.
func TestRegisterTwice(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("a second Register of a scheme did not panic")
		}
	}()
	records.Register("enginetest", records.Engine{Name: "again", Open: func(context.Context, string, string, ...records.Option) (records.Store, error) { return nil, nil }})
}

// TestPathOf checks the path of a URL of an engine that keeps its store in a directory.
func TestPathOf(t *testing.T) {
	t.Parallel()
	for url, want := range map[string]string{"duckdb:data": "data", "duckdb:///srv/data": "/srv/data", "duckdb:/srv/data": "/srv/data",
		"./data": "./data", `C:\data`: `C:\data`} {
		if got := records.PathOf(url); got != want {
			t.Errorf("PathOf(%q) = %q, want %q", url, got, want)
		}
	}
}
