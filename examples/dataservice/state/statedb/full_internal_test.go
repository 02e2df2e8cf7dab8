package statedb

import (
	"errors"
	"fmt"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestFullPostgres checks that PostgreSQL's disk_full error is ErrUnavailable, as SQLite's
// SQLITE_FULL is (TestFullDisk fills a real SQLite database; filling a real PostgreSQL
// server's disk needs a file system of its own).
func TestFullPostgres(t *testing.T) {
	t.Parallel()
	for code, want := range map[string]bool{"53100": true, "23505": false, "53200": false} {
		err := wrap("create widget", fmt.Errorf("state: commit: %w", &pgconn.PgError{Code: code}))
		if got := errors.Is(err, state.ErrUnavailable); got != want {
			t.Errorf("SQLSTATE %s: ErrUnavailable %v, want %v", code, got, want)
		}
	}
}
