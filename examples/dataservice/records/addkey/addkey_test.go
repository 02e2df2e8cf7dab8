package addkey_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/pvql"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	_ "github.com/fnapi/fnapi/examples/dataservice/records/clickhouse"
	_ "github.com/fnapi/fnapi/examples/dataservice/records/duckdb"
	"github.com/fnapi/fnapi/examples/dataservice/records/recordstest"
)

const t0 = 1_700_000_000

// TestAddKey opens a store of each engine (DuckDB, and ClickHouse when installed) and writes
// records there, then adds a column (the client port's range of 1,024) and a key over it, opens
// the stores again, which adds the column to them (zero in the rows they had), writes records
// that fill it, and checks that the key groups and filters them. Not parallel: it changes the
// process's columns, which the package's only test owns.
func TestAddKey(t *testing.T) {
	ctx := context.Background()
	urls := []string{"duckdb:" + t.TempDir()}
	if srv := clickHouse(t); srv != nil {
		urls = append(urls, srv.URL)
	}
	old := recordstest.Sample(30, t0)
	for _, u := range urls {
		s := open(t, u)
		if err := s.Ingest(ctx, old); err != nil {
			t.Fatal(err)
		}
		s.Close()
	}

	col := records.AddColumn("client_port_range", records.KindUint16,
		func(r *records.Record) uint64 { return uint64(r.Client.Port >> 10) }, nil)
	pvql.AddKey("client.port_range", col, "The client's port divided by 1,024.")
	fresh := recordstest.Sample(30, t0+100)
	for i := range fresh {
		fresh[i].Client.Port = uint16(1024 * (1 + i%3))
	}

	for _, u := range urls {
		t.Run(strings.SplitN(u, ":", 2)[0], func(t *testing.T) {
			s := open(t, u)
			defer s.Close()
			if err := s.Ingest(ctx, fresh); err != nil {
				t.Fatal(err)
			}
			e := pvql.New(s)
			for stmt, want := range map[string]string{
				"records BY client.port_range":                                "[0]:30 [1]:10 [2]:10 [3]:10",
				"records BY client.port_range WHERE client.port_range = 2":    "[2]:10",
				"records BY client.port_range WHERE client.port_range IN (0)": "[0]:30",
			} {
				rs, err := e.Query(ctx, stmt, time.Unix(t0+3600, 0), time.Hour)
				if err != nil {
					t.Fatalf("%s: %v", stmt, err)
				}
				got := ""
				for _, row := range rs[0].Data {
					got += fmt.Sprintf(" %v:%v", row.Keys, row.Values[0])
				}
				if got != " "+want {
					t.Errorf("%s:%s, want %s", stmt, got, want)
				}
			}
		})
	}
}

// open opens the store of url; the caller closes it.
func open(t *testing.T, url string) records.Store {
	t.Helper()
	s, _, err := records.Open(context.Background(), url, "")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// clickHouse starts a ClickHouse server for the whole test when it is installed, nil when not
// (testenv.Need's rule in a subtest: skipped locally, failed under CI=true).
func clickHouse(t *testing.T) *testenv.ClickHouseServer {
	installed := false
	t.Run("clickhouse installed", func(t *testing.T) {
		testenv.Need(t, "clickhouse-server", "clickhouse-server")
		installed = true
	})
	if !installed {
		return nil
	}
	return testenv.ClickHouse(t)
}
