package cluster_test

import (
	"database/sql"
	"strings"
	"sync"
	"testing"

	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/auth/authtest"
	"github.com/fnapi/fnapi/auth/sqlstore"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	_ "github.com/jackc/pgx/v5/stdlib"
)

func openDB(t *testing.T, url string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestAuthStoreOnPostgres runs the identity store's conformance suite on PostgreSQL, and its
// schema's life there: nodes starting at once, and a schema newer than the program.
func TestAuthStoreOnPostgres(t *testing.T) {
	t.Parallel()
	pg := testenv.StartPostgres(t)
	authtest.Run(t, func(t *testing.T) auth.Store {
		s, err := sqlstore.NewPostgres(t.Context(), openDB(t, pg.Database(t)))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})

	t.Run("nodes starting at once", func(t *testing.T) {
		url := pg.Database(t)
		var wg sync.WaitGroup
		for range 4 {
			db := openDB(t, url) // a pool per node
			wg.Go(func() {
				if _, err := sqlstore.NewPostgres(t.Context(), db); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	})

	t.Run("newer schema refused", func(t *testing.T) {
		db := openDB(t, pg.Database(t))
		if _, err := sqlstore.NewPostgres(t.Context(), db); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`UPDATE auth_schema SET version = 99`); err != nil {
			t.Fatal(err)
		}
		_, err := sqlstore.NewPostgres(t.Context(), db)
		if err == nil || !strings.Contains(err.Error(), "auth schema is at version 99, newer than this program's") ||
			strings.Contains(err.Error(), "\n") {
			t.Fatalf("a schema newer than the program: %v", err)
		}
	})
}

// TestRolesMigrationOnPostgres opens an identity store at schema version 2 (before roles): its
// administrators become administrators, the others users, and SetRole keeps the admin column.
func TestRolesMigrationOnPostgres(t *testing.T) {
	t.Parallel()
	pg := testenv.StartPostgres(t)
	db := openDB(t, pg.Database(t))
	for _, q := range []string{
		`CREATE TABLE auth_users (name TEXT PRIMARY KEY, password TEXT NOT NULL, admin BOOLEAN NOT NULL, created BIGINT NOT NULL)`,
		`INSERT INTO auth_users VALUES ('admin', 'h1', true, 0), ('ann', 'h2', false, 0)`,
		`CREATE TABLE auth_schema (version INTEGER NOT NULL)`,
		`INSERT INTO auth_schema VALUES (2)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	s, err := sqlstore.NewPostgres(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	us, err := s.Users(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(us) != 2 || us[0].Role != authapi.RoleAdmin || us[1].Role != authapi.RoleUser || us[1].PasswordHash != "h2" {
		t.Fatalf("after migration: %+v", us)
	}
	if err := s.SetRole(t.Context(), "ann", authapi.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	var admin bool
	if err := db.QueryRow(`SELECT admin FROM auth_users WHERE name = 'ann'`).Scan(&admin); err != nil || !admin {
		t.Fatalf("admin column after SetRole administrator: %v, %v", admin, err)
	}
}
