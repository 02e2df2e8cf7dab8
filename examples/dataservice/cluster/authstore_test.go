package cluster_test

import (
	"database/sql"
	"testing"

	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/auth/authtest"
	"github.com/fnapi/fnapi/auth/sqlstore"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	_ "github.com/jackc/pgx/v5/stdlib"
)

func TestAuthStoreOnPostgres(t *testing.T) {
	pg := testenv.StartPostgres(t)
	authtest.Run(t, func(t *testing.T) auth.Store {
		db, err := sql.Open("pgx", pg.Database(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		s, err := sqlstore.NewPostgres(t.Context(), db)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
