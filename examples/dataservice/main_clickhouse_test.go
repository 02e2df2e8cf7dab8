package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/internal/testutil"
)

// TestCommandLineClickHouse runs the service with its records in ClickHouse, on one server and
// on a two-shard cluster: ingest and query end to end; with the server killed, query and ingest
// answer UNAVAILABLE while the rest of the service works, and they work again once the server
// is back, without a restart of the service.
func TestCommandLineClickHouse(t *testing.T) {
	// Serial: a ClickHouse server and a demo backfill would slow the tests beside them.
	if testing.Short() {
		t.Skip("starts ClickHouse and the service")
	}
	single := testenv.ClickHouse(t)
	shards := testenv.ClickHouseCluster(t, 2)
	for _, tc := range []struct {
		name   string
		server *testenv.ClickHouseServer
		args   []string
	}{
		{"single", single, []string{"-clickhouse", single.URL}},
		{"cluster", shards[0], []string{"-clickhouse", shards[0].URL, "-clickhouse-cluster", testenv.ClickHouseClusterName}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := t.TempDir()
			p := startService(t, append([]string{"-addr", "127.0.0.1:0", "-data", data}, tc.args...)...)
			c := adminClient(t, p, data)
			ctx := context.Background()
			now := time.Now().Unix()
			var recs []map[string]any
			for i := range 50 {
				recs = append(recs, map[string]any{"time": now - 60 - int64(i), "protocol": "tcp",
					"client": map[string]any{"ip": fmt.Sprintf("10.0.0.%d", i%5), "port": 40000 + i, "bytes": 100, "packets": 1},
					"server": map[string]any{"ip": "2001:db8::1", "port": 443, "bytes": 1000, "packets": 2}})
			}
			var ing struct{ Ingested int }
			if err := c.Call(ctx, "ingest", map[string]any{"records": recs}, &ing); err != nil || ing.Ingested != 50 {
				t.Fatalf("ingest: %v, %+v", err, ing)
			}
			expr := map[string]any{"expr": "traffic, records BY client.ip WHERE server.ip IN 2001:db8::/32 TOP 2"}
			want := `[[["10.0.0.0"],[11000,10]],[["10.0.0.1"],[11000,10]]]`
			if got := query(t, c, expr); got != want {
				t.Fatalf("query = %s, want %s", got, want)
			}

			tc.server.Stop()
			start := time.Now()
			err := c.Call(ctx, "query", expr, nil)
			if !errors.Is(err, apierr.New(apierr.Unavailable)) {
				t.Fatalf("query with ClickHouse down: %v, want UNAVAILABLE", err)
			}
			if err := c.Call(ctx, "ingest", map[string]any{"records": recs[:1]}, nil); !errors.Is(err, apierr.New(apierr.Unavailable)) {
				t.Fatalf("ingest with ClickHouse down: %v, want UNAVAILABLE", err)
			}
			t.Logf("both answered UNAVAILABLE in %v", time.Since(start))
			var dashboards []any
			if err := c.Call(ctx, "list-dashboards", nil, &dashboards); err != nil {
				t.Fatalf("list-dashboards with ClickHouse down: %v", err)
			}
			tc.server.Start()
			if got := query(t, c, expr); got != want {
				t.Fatalf("query after ClickHouse came back = %s, want %s", got, want)
			}
			if err := c.Call(ctx, "ingest", map[string]any{"records": recs}, &ing); err != nil {
				t.Fatalf("ingest after ClickHouse came back: %v", err)
			}
			p.stop(t)
		})
	}
}

// query calls query and returns the data of its first result as JSON.
func query(t *testing.T, c *client.Client, args map[string]any) string {
	t.Helper()
	var res []struct{ Data json.RawMessage }
	if err := c.Call(context.Background(), "query", args, &res); err != nil {
		t.Fatal(err)
	}
	return string(res[0].Data)
}

// TestCommandLineClickHouseDemo runs -demo on ClickHouse: the backfilled day is queryable, and a
// restart (which asks ClickHouse for the newest record) does not backfill it again.
func TestCommandLineClickHouseDemo(t *testing.T) {
	// Serial: a ClickHouse server and a demo backfill would slow the tests beside them.
	if testing.Short() {
		t.Skip("starts ClickHouse and the service twice")
	}
	srv := testenv.ClickHouse(t)
	data := t.TempDir()
	args := []string{"-addr", "127.0.0.1:0", "-data", data, "-demo", "-clickhouse", srv.URL}
	p := startService(t, args...)
	c := adminClient(t, p, data)
	end := time.Now().Unix()
	count := func(since, until int64) float64 {
		var res []struct{ Data [][2][]float64 }
		expr := fmt.Sprintf("records SINCE %d UNTIL %d", since, until)
		if err := c.Call(context.Background(), "query", map[string]any{"expr": expr}, &res); err != nil {
			t.Fatal(err)
		}
		return res[0].Data[0][1][0]
	}
	// The backfill runs from the oldest hour on: it is done once the last minutes have records.
	testutil.Until(t, 2*time.Minute, "the demo backfill to reach the present", func() error {
		if count(end-600, end) == 0 {
			return errors.New("no records in the last 10 minutes")
		}
		return nil
	})
	total := func() float64 { return count(end-86400, end) }
	n := total()
	if n < 1000 {
		t.Fatalf("demo data: %v records in the last day", n)
	}
	p.stop(t)
	restarted := time.Now().Unix()
	p = startService(t, args...)
	c = adminClient(t, p, data)
	// The demo writes its backfill, oldest first, before its live records: once records of
	// the present are stored, a wrongly repeated backfill would have landed.
	testutil.Until(t, time.Minute, "records written after the restart", func() error {
		if count(restarted, restarted+3600) == 0 {
			return errors.New("none yet")
		}
		return nil
	})
	if after := total(); after < n || after > n*1.05 {
		t.Fatalf("after restart %v records in the window, before %v", after, n)
	}
	p.stop(t)
}
