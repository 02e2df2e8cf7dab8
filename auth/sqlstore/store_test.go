package sqlstore_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/auth/authtest"
	"github.com/fnapi/fnapi/auth/sqlstore"
)

func open(t *testing.T, path string) *sqlstore.Store {
	t.Helper()
	s, err := sqlstore.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestStore(t *testing.T) {
	authtest.Run(t, func(t *testing.T) auth.Store {
		return open(t, filepath.Join(t.TempDir(), "auth.db"))
	})
}

func openStore(ctx context.Context, path string) (*sqlstore.Store, error) {
	return sqlstore.Open(ctx, path)
}

func TestNewerSchemaRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "auth.db")
	s := open(t, path)
	s.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE auth_schema SET version = 99`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = sqlstore.Open(t.Context(), path)
	if err == nil || !strings.Contains(err.Error(), "auth schema is at version 99, newer than this program's") {
		t.Fatalf("opening a database of a newer schema: %v", err)
	}
}

func TestUnversionedDatabaseAdopted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "auth.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	// The tables as the first release made them, before auth_schema existed.
	if _, err := db.Exec(`CREATE TABLE auth_users (name TEXT PRIMARY KEY, password TEXT NOT NULL,
		admin BOOLEAN NOT NULL, created BIGINT NOT NULL);
		INSERT INTO auth_users VALUES ('ann', 'h', 1, 0)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s := open(t, path)
	if u, err := s.User(t.Context(), "ann"); err != nil || u.Role != authapi.RoleAdmin {
		t.Fatalf("user of the old database: %+v, %v", u, err)
	}
}

func TestRebind(t *testing.T) {
	for in, want := range map[string]string{
		"SELECT 1":                              "SELECT 1",
		"DELETE FROM t WHERE a = ? AND b <> ?":  "DELETE FROM t WHERE a = $1 AND b <> $2",
		"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)": "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
		"SELECT 'ü', ?":                         "SELECT 'ü', $1",
	} {
		if got := sqlstore.Rebind(in); got != want {
			t.Errorf("Rebind(%q) = %q, want %q", in, got, want)
		}
	}
}
