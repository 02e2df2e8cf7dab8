package testenv_test

import (
	"database/sql"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

func TestPostgresRestartKeepsData(t *testing.T) {
	pg := testenv.StartPostgres(t)
	url := pg.Database(t)
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE t (n INT); INSERT INTO t VALUES (7)`); err != nil {
		t.Fatal(err)
	}
	pg.Stop(t)
	if err := db.Ping(); err == nil {
		t.Fatal("ping succeeded with the server stopped")
	}
	pg.Start(t)
	var n int
	if err := db.QueryRow(`SELECT n FROM t`).Scan(&n); err != nil || n != 7 {
		t.Fatalf("after a restart: n = %d, %v", n, err)
	}
}
