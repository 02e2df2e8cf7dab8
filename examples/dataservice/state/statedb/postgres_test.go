package statedb_test

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/state/statedb"
	"github.com/fnapi/fnapi/examples/dataservice/state/statetest"
)

func openPostgres(t *testing.T, url string, opts ...statedb.Option) *statedb.Postgres {
	t.Helper()
	s, err := statedb.OpenPostgres(context.Background(), url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestPostgres(t *testing.T) {
	t.Parallel()
	pg := testenv.StartPostgres(t)
	statetest.Run(t, func(t *testing.T, opts ...statedb.Option) state.Store {
		return openPostgres(t, pg.Database(t), opts...)
	})

	t.Run("nodes starting at once", func(t *testing.T) {
		url := pg.Database(t)
		var wg sync.WaitGroup
		stores := make([]*statedb.Postgres, 4)
		errs := make([]error, len(stores))
		for i := range stores {
			wg.Go(func() { stores[i], errs[i] = statedb.OpenPostgres(t.Context(), url) })
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("node %d: %v", i, err)
			}
			defer stores[i].Close()
		}
		// Two nodes increment one value together: the write lock keeps every increment.
		const n = 10
		for i := range n * 2 {
			wg.Go(func() {
				_, err := stores[i%2].UpdateConfig(t.Context(), func(v map[string]string) error {
					c, _ := strconv.Atoi(v["count"])
					v["count"] = strconv.Itoa(c + 1)
					return nil
				})
				if err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if got := must[map[string]string](t)(stores[3].Config(t.Context())); got["count"] != strconv.Itoa(2*n) {
			t.Fatalf("count = %s after %d increments on two nodes", got["count"], 2*n)
		}
	})

	t.Run("newer schema refused", func(t *testing.T) {
		url := pg.Database(t)
		openPostgres(t, url)
		db, err := sql.Open("pgx", url)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec(`UPDATE state_schema SET version = 99`); err != nil {
			t.Fatal(err)
		}
		_, err = statedb.OpenPostgres(t.Context(), url)
		if err == nil || !strings.Contains(err.Error(), "schema version 99 is newer than this program's") ||
			strings.Contains(err.Error(), "\n") {
			t.Fatalf("opening a database of a newer schema: %v", err)
		}
	})

	t.Run("survives a server restart", func(t *testing.T) {
		s := openPostgres(t, pg.Database(t))
		d := must[state.Dashboard](t)(s.CreateDashboard(t.Context(), state.Dashboard{Title: "kept"}))
		pg.Stop(t)
		if _, err := s.Dashboards(t.Context()); err == nil {
			t.Fatal("a store whose server is down answered")
		}
		pg.Start(t)
		if got, err := s.Dashboard(t.Context(), d.ID); err != nil || got.Title != "kept" {
			t.Fatalf("after the restart: %+v, %v", got, err)
		}
	})
}
