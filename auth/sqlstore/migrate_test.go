package sqlstore_test

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/fnapi/fnapi/auth"
)

// TestMigrateRoles opens a store written before roles: its administrators stay
// administrators, its other users become users, and the admin column follows later changes.
func TestMigrateRoles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "auth.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE auth_users (name TEXT PRIMARY KEY, password TEXT NOT NULL, admin BOOLEAN NOT NULL, created BIGINT NOT NULL)`,
		`INSERT INTO auth_users VALUES ('admin', 'h1', 1, 0), ('ann', 'h2', 0, 0)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	for range 2 { // a second open finds the column there
		s := open(t, path)
		us, err := s.Users(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(us) != 2 || us[0].Role != auth.RoleAdmin || us[1].Role != auth.RoleUser || us[1].PasswordHash != "h2" {
			t.Fatalf("after migration: %+v", us)
		}
		s.Close()
	}
	s := open(t, path)
	if err := s.SetRole(t.Context(), "ann", auth.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err = sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var admin bool
	if err := db.QueryRow(`SELECT admin FROM auth_users WHERE name = 'ann'`).Scan(&admin); err != nil || !admin {
		t.Fatalf("admin column after SetRole administrator: %v, %v", admin, err)
	}
}
