package pvql

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records/clickhouse"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// TestClickHouseSameAnswers is the differential test of the two records engines: the same
// records in DuckDB, in one ClickHouse server and in a two-shard ClickHouse cluster; every
// descriptor and the random queries (all keys, filters, CIDRs, HAVING, TOP, time(N), empty and
// reversed periods, IPv4 and IPv6) answer as the reference does and as DuckDB does, and so do
// random statements of the rollup's keys and filters over periods that cut its minutes.
func TestClickHouseSameAnswers(t *testing.T) {
	recs := testRecords()
	duck := New(openDB(t, recs))
	single := testenv.ClickHouse(t)
	shards := testenv.ClickHouseCluster(t, 2)
	for _, tc := range []struct {
		name, url, cluster string
	}{
		{"single", single.URL, ""},
		{"cluster", shards[0].URL, testenv.ClickHouseClusterName},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := clickhouse.Open(context.Background(), tc.url, tc.cluster)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			load(t, s, recs)
			engine := New(s, WithStreamSlices(3))
			checkDescriptors(t, engine, recs)
			checkRandomQueries(t, engine, recs, 300, duck)
			checkRollupQueries(t, engine, recs, rand.New(rand.NewPCG(55, 89)), 150)
		})
	}
}

// TestClickHouseAwkwardStrings checks that applications holding quotes, backslashes, "?" and
// non-ASCII letters reach ClickHouse as values, never as SQL or placeholders, and answer as on
// DuckDB.
func TestClickHouseAwkwardStrings(t *testing.T) {
	apps := []string{"x?y", "it's", `a\b`, "ü-app", "https"}
	var recs []rec
	for i, app := range apps {
		r := genRecords(uint64(i), 1, testNow-100, testNow-99)[0]
		r.app, r.proto = app, records.TCP
		recs = append(recs, r)
	}
	duck := New(openDB(t, recs))
	s, err := clickhouse.Open(context.Background(), testenv.ClickHouse(t).URL, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	load(t, s, recs)
	ch := New(s)
	expr := `records BY application WHERE application IN ('x?y', 'it\'s', "a\\b", 'ü-app') AND protocol = tcp AND client.port >= 0`
	now := time.Unix(testNow, 0)
	want, err := duck.Query(context.Background(), expr, now, time.Hour)
	if err != nil || len(want[0].Data) != 4 {
		t.Fatalf("DuckDB: %v, %v", want, err)
	}
	got, err := ch.Query(context.Background(), expr, now, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if d := diffResult(got[0], want[0]); d != "" {
		t.Fatal(d)
	}
}
