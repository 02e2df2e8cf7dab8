package duckdb

import (
	"context"
	"database/sql/driver"
	"math"
	"math/rand/v2"
	"net/netip"
	"reflect"
	"slices"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/histogram"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/records/recordstest"
)

// openTemp opens a DuckDB store in a temporary directory, closed when t ends.
func openTemp(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestRollupsDescribed checks that the rollups' widths nest (each divides every larger one),
// that their tables differ, and that a rollup row holds the record's value of each of its key
// columns, as the records table does (rollupKey's slots, keySlots).
func TestRollupsDescribed(t *testing.T) {
	t.Parallel()
	rec := records.Record{Time: 7261, Protocol: records.UDP, Application: "dns", Exporter: netip.MustParseAddr("192.0.2.9"), InIf: 3, OutIf: 4,
		Client: records.Endpoint{IP: netip.MustParseAddr("10.0.0.1"), Port: 40000, Bytes: 100, Packets: 2},
		Server: records.Endpoint{IP: netip.MustParseAddr("2001:db8::53"), Port: 5353, Bytes: 300, Packets: 3}}
	sqlNames, _ := records.SQLColumns()
	recordValues := map[string]driver.Value{}
	for i, v := range new(records.RowBuilder).AppendRow(nil, &rec) {
		recordValues[sqlNames[i]] = v
	}
	tables := map[string]bool{}
	for _, a := range duckRollups {
		if tables[a.Table] {
			t.Errorf("two rollups in %s", a.Table)
		}
		tables[a.Table] = true
		for _, b := range duckRollups {
			if a.Width <= b.Width && b.Width%a.Width != 0 {
				t.Errorf("%s's width %d does not divide %s's %d", a.Table, a.Width, b.Table, b.Width)
			}
		}
		var rk rollupKey
		recordKey(&a, &rk, &rec)
		var want []driver.Value
		for _, n := range a.KeyNames() {
			want = append(want, recordValues[n])
		}
		got := appendKey(&a, nil, &rk)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: key values %v for the columns %v, want %v", a.Table, got, a.KeyNames(), want)
		}
		if names, _ := a.Columns(); len(names) != 1+len(got)+len(records.RollupSums)+1+len(records.RollupMeasures)+len(records.RollupHists) {
			t.Errorf("%s: %d key values for the columns %v", a.Table, len(got), names)
		}
	}
}

// randomRecords returns n records over [from, from+span) with few distinct keys, so that
// rollup rows sum several records.
func randomRecords(rng *rand.Rand, n int, from, span int64) []records.Record {
	addrs := []netip.Addr{netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2"),
		netip.MustParseAddr("2001:db8::1"), netip.MustParseAddr("192.168.1.7")}
	recs := make([]records.Record, n)
	for i := range recs {
		recs[i] = records.Record{Time: from + rng.Int64N(span), Protocol: []uint8{records.TCP, records.UDP, records.ICMP}[rng.IntN(3)],
			Application: []string{"dns", "https", "ssh", "unknown"}[rng.IntN(4)],
			Client:      records.Endpoint{IP: addrs[rng.IntN(4)], Port: uint16(rng.IntN(3)), Bytes: rng.Uint64N(1 << 40), Packets: rng.Uint64N(100)},
			Server:      records.Endpoint{IP: addrs[rng.IntN(4)], Port: []uint16{53, 443, 22}[rng.IntN(3)], Bytes: rng.Uint64N(1 << 40), Packets: rng.Uint64N(100)}}
		r := &recs[i]
		r.Client.RTT, r.Server.RTT, r.SRT = randomTiming(rng), randomTiming(rng), randomTiming(rng)
		r.Client.Retrans, r.Server.ZeroWindows, r.Resets = rng.Uint64N(3), rng.Uint64N(2), rng.Uint64N(2)
	}
	return recs
}

// randomTiming returns a time of 0 to 3 samples up to half a second, with their histogram or,
// one time in three, averaged (no histogram).
func randomTiming(rng *rand.Rand) records.Timing {
	var t records.Timing
	for range rng.IntN(4) {
		us := 1 + rng.Uint64N(500_000)
		t.Sum += us
		t.Samples++
		t.Hist.Add(float64(us) / 1e6)
	}
	if rng.IntN(3) == 0 {
		t.Hist = histogram.Histogram{}
	}
	return t
}

// randomRollupQuery returns a query of random keys, buckets and filter that some rollup
// answers.
func randomRollupQuery(rng *rand.Rand) *records.Query {
	for {
		if q := randomQuery(rng); len(records.Chain(duckRollups, q)) > 0 {
			return q
		}
	}
}

// randomQuery returns a query of random keys, buckets and filter among those rollups hold.
func randomQuery(rng *rand.Rand) *records.Query {
	q := &records.Query{Sums: []records.Sum{records.SumClientBytes, records.SumServerPackets, records.SumRecords}[:1+rng.IntN(3)]}
	if rng.IntN(2) == 0 { // the capture probe's measures (Rollup.Measures)
		q.Sums = append(q.Sums, []records.Sum{records.SumSRT, records.SumSRTSamples, records.SumClientRetrans, records.SumResets, records.SumServerZeroWindows}[rng.IntN(5)])
		q.Hists = []records.Column{records.ColSRTHist, records.ColClientRTTHist, records.ColServerRTTHist, records.ColDTTHist}[:rng.IntN(4)]
	}
	if rng.IntN(2) == 0 {
		q.Groups = append(q.Groups, records.Group{Bucket: []int64{60, 600, 3600, 7200, 6 * 3600}[rng.IntN(5)]})
	}
	for _, c := range []records.Column{records.ColProtocol, records.ColApplication, records.ColServerPort, records.ColServerIP, records.ColClientIP} {
		if rng.IntN(4) == 0 {
			q.Groups = append(q.Groups, records.Group{Column: c})
		}
	}
	switch rng.IntN(4) {
	case 0:
		q.Where = records.Compare{Column: records.ColProtocol, Op: records.Eq, Value: records.Value{Lo: uint64(records.TCP)}}
	case 1:
		q.Where = records.Not{Cond: records.Or{records.In{Column: records.ColApplication, Values: []records.Value{{Str: "dns"}}}, records.Compare{Column: records.ColServerPort, Op: records.Lt, Value: records.Value{Lo: 50}}}}
	case 2:
		hi, lo := records.Halves(netip.MustParseAddr("10.0.0.0"))
		q.Where = records.Range{Column: records.ColClientIP, From: records.Value{Hi: hi, Lo: lo}, To: records.Value{Hi: hi, Lo: lo + 255}}
	}
	return q
}

// TestRollupCompaction checks that compacting a rollup merges the rows that batches wrote for
// one bucket and keys into one and leaves its sums as they were, that a rollup is compacted
// once it has gained compactRows rows, and that the background step compacts fewer.
func TestRollupCompaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTemp(t)
	setMarks(t, s, math.MaxInt64) // every record is summed in its transaction
	rows := func() (n []int) {
		t.Helper()
		for _, r := range s.rollups {
			var k int
			if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM "+r.Table).Scan(&k); err != nil {
				t.Fatal(err)
			}
			n = append(n, k)
		}
		return n
	}
	all := func(n int) []int { return slices.Repeat([]int{n}, len(s.rollups)) }
	r := records.Record{Time: 1_699_999_981, Protocol: records.UDP, Application: "dns",
		Client: records.Endpoint{IP: netip.MustParseAddr("10.0.0.1"), Bytes: 5}, Server: records.Endpoint{IP: netip.MustParseAddr("10.0.0.2"), Port: 53}}
	for range 10 { // all in the minute from 1_699_999_980
		r.Time++
		h := r // and a request, for the HTTP layer's rollups
		h.Layer, h.HTTP = records.LayerHTTP, records.HTTP{Method: "GET", Status: 200, Host: "a.example"}
		if err := s.Ingest(ctx, []records.Record{r, h}); err != nil {
			t.Fatal(err)
		}
	}
	qs := []*records.Query{{Groups: []records.Group{{Bucket: 60}, {Column: records.ColApplication}}, Sums: []records.Sum{records.SumClientBytes, records.SumRecords}},
		{Groups: []records.Group{{Column: records.ColClientIP}}, Sums: []records.Sum{records.SumRecords}}}
	const lo, hi = 1_699_999_940, 1_700_000_180
	before := sumsBy(t, s, lo, hi, false, qs...)
	if n := rows(); !slices.Equal(n, all(10)) {
		t.Fatalf("rollup rows after 10 batches of one minute and keys: %v", n)
	}
	for i := range s.rollups {
		if left, err := compact(ctx, &s.rollups[i], s.db, records.FloorTo(lo, s.rollups[i].Width), hi); err != nil || left != 1 {
			t.Fatalf("compacting %s: %d rows left, %v", s.rollups[i].Table, left, err)
		}
	}
	if n := rows(); !slices.Equal(n, all(1)) {
		t.Errorf("rollup rows after compaction: %v, want 1 each", n)
	}
	if after := sumsBy(t, s, lo, hi, false, qs...); !reflect.DeepEqual(before, after) || !reflect.DeepEqual(after, sumsBy(t, s, lo, hi, true, qs...)) {
		t.Errorf("sums before compaction %v, after %v", before, after)
	}
	for i := range s.spans {
		s.spans[i] = rollupSpan{rows: compactRows - 1}
	}
	for range 2 {
		h := r
		h.Layer, h.HTTP = records.LayerHTTP, records.HTTP{Method: "GET", Status: 200, Host: "a.example"}
		if err := s.Ingest(ctx, []records.Record{r, h}); err != nil {
			t.Fatal(err)
		}
	}
	if n := rows(); !slices.Equal(n, all(2)) || s.spans[0].rows != 1 {
		t.Errorf("after the ingest that made a compaction due and one more: rollup rows %v (want 2 each), %d rows pending (want 1)", n, s.spans[0].rows)
	}
	// The background step compacts what is pending, however little.
	if err := s.catchUp(ctx, 1_700_000_000); err != nil {
		t.Fatal(err)
	}
	if n := rows(); !slices.Equal(n, all(1)) || s.spans[0].rows != 0 {
		t.Errorf("after the background step: rollup rows %v (want 1 each), %d rows pending (want 0)", n, s.spans[0].rows)
	}
	if got, want := sumsBy(t, s, lo, hi, false, qs...), sumsBy(t, s, lo, hi, true, qs...); !reflect.DeepEqual(got, want) {
		t.Errorf("sums after the background step %v, the records' %v", got, want)
	}
}

// TestRollupSpanDue checks when a rollup's compaction falls due: once it has gained
// compactRows rows, or half the rows its last compaction left when that is more, and that the
// span covers every bucket touched.
func TestRollupSpanDue(t *testing.T) {
	t.Parallel()
	sp := rollupSpan{}
	if sp.add(compactRows-1, 120, 180) || !sp.add(1, 60, 60) || sp.lo != 60 || sp.hi != 180 {
		t.Errorf("after compactRows rows: %+v", sp)
	}
	sp = rollupSpan{left: 6 * compactRows}
	if sp.add(2*compactRows, 0, 0) || !sp.add(compactRows, 0, 0) {
		t.Errorf("after half of the %d rows left: %+v", 6*compactRows, sp)
	}
}

// sumsBy reads qs over [from, to) from the records alone (raw) or with the rollups, and
// returns the sums of each query's groups (recordstest.SumsBy).
func sumsBy(t *testing.T, s records.Reader, from, to int64, raw bool, qs ...*records.Query) map[string][]uint64 {
	t.Helper()
	return recordstest.SumsBy(t, s, recordsOnly, from, to, raw, qs...)
}

// recordsOnly compiles qs to a plan that reads DuckDB's records alone.
func recordsOnly(qs ...*records.Query) *records.Plan {
	return records.Compile(duckDialect, "records", nil, qs)
}
