package pvql

import (
	"context"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records/clickhouse"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// saturatingRecords are what an attacker can ingest in one call: 2,049 records of
// records.MaxCount a side (application "https": their sums pass records.MaxSum), 2,048 more
// ("ssh": exact sums just below it) and 3 small ones ("dns"), in one minute of the hour before
// testNow.
func saturatingRecords() []rec {
	var out []rec
	add := func(n int, app string, count uint64) {
		for i := range n {
			out = append(out, rec{time: testNow - 1800 + int64(i%60), proto: 6, app: app,
				cIP: testClients[i%4], sIP: testServers[0], cPort: 40000, sPort: 443,
				cBytes: count, cPackets: count, sBytes: count, sPackets: count})
		}
	}
	add(2049, "https", records.MaxCount)
	add(2048, "ssh", records.MaxCount)
	add(3, "dns", 100)
	return out
}

// saturatingExpr reads the sums of saturatingRecords: by application, in total, and by client
// (which the rollups with addresses answer once rolled up).
const saturatingExpr = "traffic, client.traffic, records BY application; traffic, client.packets, records; traffic BY client.ip"

// checkSaturating checks e's answers to saturatingExpr over saturatingRecords: each sum exact
// below records.MaxSum and records.MaxSum (as a float64) past it, never an error.
func checkSaturating(t *testing.T, e *Engine) []Result {
	t.Helper()
	res, err := e.Query(context.Background(), saturatingExpr, time.Unix(testNow, 0), time.Hour)
	if err != nil {
		t.Fatalf("query over sums past MaxSum: %v", err)
	}
	max, ssh := float64(records.MaxSum), float64(2048*records.MaxCount)
	want := [][]Row{
		{{Keys: []any{"https"}, Values: []float64{max, max, 2049}},
			{Keys: []any{"ssh"}, Values: []float64{max, ssh, 2048}},
			{Keys: []any{"dns"}, Values: []float64{600, 300, 3}}},
		{{Keys: []any{}, Values: []float64{max, max, 4100}}},
		// Client 10.0.0.1 sent 1,025 records of MaxCount a side and a small one; the others
		// 1,024, 2^64-2,048 in all, and 10.0.0.2 and 10.0.0.3 a small one too: exact.
		{{Keys: []any{"10.0.0.1"}, Values: []float64{max}}, {Keys: []any{"10.0.0.2"}, Values: []float64{float64(2048*records.MaxCount + 200)}},
			{Keys: []any{"10.0.0.3"}, Values: []float64{float64(2048*records.MaxCount + 200)}}, {Keys: []any{"10.0.0.9"}, Values: []float64{ssh}}},
	}
	for i, w := range want {
		if !reflect.DeepEqual(res[i].Data, w) {
			t.Errorf("statement %d: %v, want %v", i, res[i].Data, w)
		}
	}
	return res
}

// TestSumsSaturate checks that sums past records.MaxSum answer it, on DuckDB (from the records,
// from every rollup once the background ones are rolled up, and followed by a Live) and on
// ClickHouse, identically.
func TestSumsSaturate(t *testing.T) {
	t.Parallel()
	recs := saturatingRecords()
	duck := openDB(t, recs)
	ctx := context.Background()
	fresh := checkSaturating(t, New(duck))
	// A record long after makes the minute due for the background rollups.
	load(t, duck, []rec{{time: testNow + 3*3600, proto: 6, app: "dns", cIP: testClients[0], sIP: testServers[0], cBytes: 1}})
	if err := duck.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	rolled := checkSaturating(t, New(duck))
	for i := range fresh {
		if !reflect.DeepEqual(fresh[i].Data, rolled[i].Data) {
			t.Errorf("statement %d: %v from the records, %v through the rollups", i, fresh[i].Data, rolled[i].Data)
		}
	}

	l, err := New(duck).Live(saturatingExpr, duck.Changes())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for step := range 3 { // the second answer is where a Live subtracts and adds what changed
		if step == 1 {
			load(t, duck, []rec{{time: testNow - 10, proto: 6, app: "dns", cIP: testClients[0], sIP: testServers[0], cBytes: 1}})
		}
		now := time.Unix(testNow+int64(step), 0)
		got, err := l.Answer(ctx, now, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		want, err := New(duck).Query(ctx, saturatingExpr, now, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if !reflect.DeepEqual(got[i].Data, want[i].Data) {
				t.Errorf("answer %d, statement %d: followed %v, afresh %v", step, i, got[i].Data, want[i].Data)
			}
		}
	}
	if !l.full {
		t.Error("a Live whose sums reached MaxSum still follows them incrementally")
	}

	ch, err := clickhouse.Open(ctx, testenv.ClickHouse(t).URL, "")
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	load(t, ch, recs)
	answers := checkSaturating(t, New(ch))
	for i := range fresh {
		if !reflect.DeepEqual(fresh[i].Data, answers[i].Data) {
			t.Errorf("statement %d: %v on DuckDB, %v on ClickHouse", i, fresh[i].Data, answers[i].Data)
		}
	}
	if math.IsNaN(answers[1].Data[0].Values[0]) {
		t.Error("a saturated total is null")
	}
}
