package cluster_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/examples/dataservice/cluster"
	"github.com/fnapi/fnapi/registry"
	_ "modernc.org/sqlite"
)

// TestFullDiskUnavailable fills a real SQLite database (bounded as a full disk would bound it)
// and checks that the Interceptor answers UNAVAILABLE for the internal error a function made
// of it: users, keys and the audit trail, whatever store holds them, answer 503 on a full
// disk, not 500.
func TestFullDiskUnavailable(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "full.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=max_page_count(8)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE t (v TEXT)`); err != nil {
		t.Fatal(err)
	}
	var full error
	for i := 0; i < 100 && full == nil; i++ {
		_, full = db.Exec(`INSERT INTO t VALUES (?)`, strings.Repeat("x", 4000))
	}
	if full == nil {
		t.Fatal("400 KB written into 8 pages")
	}
	if cluster.Unreachable(fmt.Errorf("creating a key: %w", full)) != true {
		t.Fatalf("Unreachable(%v) = false", full)
	}
	h := cluster.Interceptor()(func(context.Context, *registry.Call) (any, error) {
		return nil, apierr.New(apierr.Internal).Wrap(fmt.Errorf("sqlstore: %w", full))
	})
	_, err = h(context.Background(), &registry.Call{})
	if apierr.CodeOf(err) != apierr.Unavailable.Code() {
		t.Fatalf("a call failing on a full disk: %v, want UNAVAILABLE", err)
	}
}
