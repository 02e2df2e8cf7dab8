package records

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// Engine is one kind of store, as the table of engines lists it. Each engine package
// (records/duckdb, records/clickhouse) registers itself in its init, the way database/sql
// drivers do; a program links the engines it imports, and Open chooses among them by the
// scheme of a store's URL. What differs between engines is read from here, never from the
// URL's form: the name, whether other processes share the store, whether it has clusters.
type Engine struct {
	// Name names the engine, as spans' db.system.name does ("duckdb", "clickhouse").
	Name string
	// Shared is true when other processes may write the engine's stores (records kept for
	// several nodes): work on them such as retention then runs on one node at a time.
	Shared bool
	// Clusters is true when the engine takes the name of a cluster of servers (Open's cluster).
	Clusters bool
	// Open opens the store at url, which has the scheme the engine registered, or no scheme
	// for the default engine; cluster is "" or, with Clusters, the cluster holding the store.
	Open func(ctx context.Context, url, cluster string, opts ...Option) (Store, error)
}

// DefaultScheme is the scheme of a URL that has none (a plain path): the embedded DuckDB.
const DefaultScheme = "duckdb"

var engines = struct {
	sync.RWMutex
	by map[string]*Engine
}{by: map[string]*Engine{}}

// Register adds e to the table under scheme ("duckdb" for URLs duckdb:<dir>). It panics when
// the scheme is taken or e has no Open, as database/sql.Register does: both are programming
// errors.
func Register(scheme string, e Engine) {
	engines.Lock()
	defer engines.Unlock()
	if e.Open == nil {
		panic("records: Register of an engine without Open")
	}
	if _, dup := engines.by[scheme]; dup {
		panic("records: Register called twice for scheme " + scheme)
	}
	engines.by[scheme] = &e
}

// EngineOf returns the engine that opens url, by its scheme: the text before the first ':'
// when that is a scheme of two letters or more (so a Windows drive is a path); a URL without
// one is a path, opened by the DefaultScheme's engine.
func EngineOf(url string) (*Engine, error) {
	scheme := schemeOf(url)
	if scheme == "" {
		scheme = DefaultScheme
	}
	engines.RLock()
	defer engines.RUnlock()
	e, ok := engines.by[scheme]
	if !ok {
		return nil, fmt.Errorf("records: no engine for %q URLs (this program has %s)", scheme, strings.Join(slices.Sorted(maps.Keys(engines.by)), ", "))
	}
	return e, nil
}

// Open opens the store at url with the engine its scheme names (EngineOf) and returns both.
// cluster is "" or the cluster of servers holding the store, for an engine with Clusters.
func Open(ctx context.Context, url, cluster string, opts ...Option) (Store, *Engine, error) {
	e, err := EngineOf(url)
	if err != nil {
		return nil, nil, err
	}
	if cluster != "" && !e.Clusters {
		return nil, nil, fmt.Errorf("records: %s stores have no cluster (%q)", e.Name, cluster)
	}
	s, err := e.Open(ctx, url, cluster, opts...)
	if err != nil {
		return nil, nil, err
	}
	return s, e, nil
}

// schemeOf returns url's scheme, or "" when it has none.
func schemeOf(url string) string {
	i := strings.IndexByte(url, ':')
	if i < 2 {
		return ""
	}
	for j, c := range url[:i] {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || j > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return ""
		}
	}
	return strings.ToLower(url[:i])
}

// PathOf returns the path of a URL of an engine that keeps its store in a directory:
// "<scheme>:<path>", "<scheme>://<path>" or a plain path.
func PathOf(url string) string {
	if s := schemeOf(url); s != "" {
		url = strings.TrimPrefix(url[len(s)+1:], "//")
	}
	return url
}
