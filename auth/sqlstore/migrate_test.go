package sqlstore_test

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/fnapi/fnapi/auth/authapi"
)

// TestMigrateRoles opens a store written before roles: its administrators stay
// administrators, its other users become users, and the admin column follows later changes.
func TestMigrateRoles(t *testing.T) {
	path := writeDB(t,
		`CREATE TABLE auth_users (name TEXT PRIMARY KEY, password TEXT NOT NULL, admin BOOLEAN NOT NULL, created BIGINT NOT NULL)`,
		`INSERT INTO auth_users VALUES ('admin', 'h1', 1, 0), ('ann', 'h2', 0, 0)`,
	)

	for range 2 { // a second open finds the column there
		s := open(t, path)
		us, err := s.Users(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(us) != 2 || us[0].Role != authapi.RoleAdmin || us[1].Role != authapi.RoleUser || us[1].PasswordHash != "h2" {
			t.Fatalf("after migration: %+v", us)
		}
		s.Close()
	}
	s := open(t, path)
	if err := s.SetRole(t.Context(), "ann", authapi.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var admin bool
	if err := db.QueryRow(`SELECT admin FROM auth_users WHERE name = 'ann'`).Scan(&admin); err != nil || !admin {
		t.Fatalf("admin column after SetRole administrator: %v, %v", admin, err)
	}
}

// TestRolesBeforeVersioning opens a store of the release that added roles before the schema was
// versioned: it has the role column but no auth_schema, and keeps its roles.
func TestRolesBeforeVersioning(t *testing.T) {
	path := writeDB(t,
		`CREATE TABLE auth_users (name TEXT PRIMARY KEY, password TEXT NOT NULL, admin BOOLEAN NOT NULL, created BIGINT NOT NULL, role TEXT NOT NULL DEFAULT '')`,
		`INSERT INTO auth_users VALUES ('admin', 'h1', 1, 0, 'administrator'), ('ro', 'h2', 0, 0, 'read-only')`,
	)
	s := open(t, path)
	defer s.Close()
	us, err := s.Users(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(us) != 2 || us[0].Role != authapi.RoleAdmin || us[1].Role != authapi.RoleReadOnly {
		t.Fatalf("after migration: %+v", us)
	}
}

// writeDB runs stmts in a new SQLite database and returns its path.
func writeDB(t *testing.T, stmts ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "auth.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return path
}
