package records

import (
	"context"
	"database/sql/driver"
	"fmt"
	"math"
	"math/rand/v2"
	"net/netip"
	"reflect"
	"slices"
	"testing"
)

// openTemp opens a DuckDB store in a temporary directory, closed when t ends.
func openTemp(t *testing.T) *DuckDB {
	t.Helper()
	s, err := OpenDuckDB(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// rollups counts the rollups p's parts read.
func rollups(p *Plan) int {
	n := len(p.widths)
	for _, part := range p.parts {
		n += rollups(part)
	}
	return n
}

// sumsBy reads qs over [from, to) from the records alone (raw) or with the rollups, and
// returns the sums of each query's groups.
func sumsBy(t *testing.T, s Reader, from, to int64, raw bool, qs ...*Query) map[string][]uint64 {
	t.Helper()
	p := s.Compile(qs...)
	if raw {
		switch s := s.(type) {
		case *DuckDB:
			p = compile(duckDialect, "records", nil, qs)
		case *ClickHouse:
			p = compile(chDialect, s.table, nil, qs)
		}
	} else if rollups(p) == 0 {
		t.Fatalf("no rollup for %+v", qs)
	}
	out := map[string][]uint64{}
	err := s.Read(context.Background(), p, from, to, func(r *Row) error {
		k := fmt.Sprint(r.Query, r.Keys)
		if out[k] == nil {
			out[k] = make([]uint64, len(r.Sums))
		}
		for i, v := range r.Sums {
			out[k][i] = AddSum(out[k][i], v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRollupsDescribed checks that the rollups' widths nest (each divides every larger one),
// that their tables differ, that each key column of a rollup is described in
// rollupKeyColumns, and that a rollup row holds the record's value of each of its key columns,
// as the records table does.
func TestRollupsDescribed(t *testing.T) {
	rec := Record{Time: 7261, Protocol: UDP, Application: "dns", Exporter: netip.MustParseAddr("192.0.2.9"), InIf: 3, OutIf: 4,
		Client: Endpoint{IP: netip.MustParseAddr("10.0.0.1"), Port: 40000, Bytes: 100, Packets: 2},
		Server: Endpoint{IP: netip.MustParseAddr("2001:db8::53"), Port: 5353, Bytes: 300, Packets: 3}}
	sqlNames, _ := sqlColumns()
	recordValues := map[string]driver.Value{}
	for i, v := range new(rowBuilder).appendRow(nil, &rec) {
		recordValues[sqlNames[i]] = v
	}
	tables := map[string]bool{}
	for _, a := range duckRollups {
		if tables[a.table] {
			t.Errorf("two rollups in %s", a.table)
		}
		tables[a.table] = true
		for _, b := range duckRollups {
			if a.width <= b.width && b.width%a.width != 0 {
				t.Errorf("%s's width %d does not divide %s's %d", a.table, a.width, b.table, b.width)
			}
		}
		if i := slices.IndexFunc(a.keys, func(c Column) bool {
			return rollupKeyColumns[c].keep == nil || rollupKeyColumns[c].appendTo == nil
		}); i >= 0 {
			t.Errorf("%s: key column %s has no row in rollupKeyColumns", a.table, a.keys[i].Name())
			continue
		}
		k := recordKey(&rec)
		var rk rollupKey
		a.key(&rk, &k)
		var want []driver.Value
		for _, n := range a.keyNames() {
			want = append(want, recordValues[n])
		}
		got := a.appendKey(nil, &rk)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: key values %v for the columns %v, want %v", a.table, got, a.keyNames(), want)
		}
		if names, _ := a.columns(); len(names) != 1+len(got)+len(rollupSums)+1 {
			t.Errorf("%s: %d key values for the columns %v", a.table, len(got), names)
		}
	}
}

// randomRecords returns n records over [from, from+span) with few distinct keys, so that
// rollup rows sum several records.
func randomRecords(rng *rand.Rand, n int, from, span int64) []Record {
	addrs := []netip.Addr{netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2"),
		netip.MustParseAddr("2001:db8::1"), netip.MustParseAddr("192.168.1.7")}
	recs := make([]Record, n)
	for i := range recs {
		recs[i] = Record{Time: from + rng.Int64N(span), Protocol: []uint8{TCP, UDP, ICMP}[rng.IntN(3)],
			Application: []string{"dns", "https", "ssh", "unknown"}[rng.IntN(4)],
			Client:      Endpoint{IP: addrs[rng.IntN(4)], Port: uint16(rng.IntN(3)), Bytes: rng.Uint64N(1 << 40), Packets: rng.Uint64N(100)},
			Server:      Endpoint{IP: addrs[rng.IntN(4)], Port: []uint16{53, 443, 22}[rng.IntN(3)], Bytes: rng.Uint64N(1 << 40), Packets: rng.Uint64N(100)}}
	}
	return recs
}

// randomRollupQuery returns a query of random keys, buckets and filter that some rollup
// answers.
func randomRollupQuery(rng *rand.Rand) *Query {
	for {
		if q := randomQuery(rng); len(chain(duckRollups, q)) > 0 {
			return q
		}
	}
}

// randomQuery returns a query of random keys, buckets and filter among those rollups hold.
func randomQuery(rng *rand.Rand) *Query {
	q := &Query{Sums: []Sum{SumClientBytes, SumServerPackets, SumRecords}[:1+rng.IntN(3)]}
	if rng.IntN(2) == 0 {
		q.Groups = append(q.Groups, Group{Bucket: []int64{60, 600, 3600, 7200}[rng.IntN(4)]})
	}
	for _, c := range []Column{ColProtocol, ColApplication, ColServerPort, ColServerIP, ColClientIP} {
		if rng.IntN(4) == 0 {
			q.Groups = append(q.Groups, Group{Column: c})
		}
	}
	switch rng.IntN(4) {
	case 0:
		q.Where = Compare{Column: ColProtocol, Op: Eq, Value: Value{Lo: uint64(TCP)}}
	case 1:
		q.Where = Not{Or{In{Column: ColApplication, Values: []Value{{Str: "dns"}}}, Compare{Column: ColServerPort, Op: Lt, Value: Value{Lo: 50}}}}
	case 2:
		hi, lo := Halves(netip.MustParseAddr("10.0.0.0"))
		q.Where = Range{Column: ColClientIP, From: Value{Hi: hi, Lo: lo}, To: Value{Hi: hi, Lo: lo + 255}}
	}
	return q
}

// TestRollupCompaction checks that compacting a rollup merges the rows that batches wrote for
// one bucket and keys into one and leaves its sums as they were, and that a rollup is
// compacted once it has gained compactRows rows.
func TestRollupCompaction(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	setMarks(t, s, math.MaxInt64) // every record is summed in its transaction
	rows := func() (n []int) {
		t.Helper()
		for _, r := range s.rollups {
			var k int
			if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM "+r.table).Scan(&k); err != nil {
				t.Fatal(err)
			}
			n = append(n, k)
		}
		return n
	}
	all := func(n int) []int { return slices.Repeat([]int{n}, len(s.rollups)) }
	r := Record{Time: 1_699_999_981, Protocol: UDP, Application: "dns",
		Client: Endpoint{IP: netip.MustParseAddr("10.0.0.1"), Bytes: 5}, Server: Endpoint{IP: netip.MustParseAddr("10.0.0.2"), Port: 53}}
	for range 10 { // all in the minute from 1_699_999_980
		r.Time++
		if err := s.Ingest(ctx, []Record{r}); err != nil {
			t.Fatal(err)
		}
	}
	qs := []*Query{{Groups: []Group{{Bucket: 60}, {Column: ColApplication}}, Sums: []Sum{SumClientBytes, SumRecords}},
		{Groups: []Group{{Column: ColClientIP}}, Sums: []Sum{SumRecords}}}
	const lo, hi = 1_699_999_940, 1_700_000_180
	before := sumsBy(t, s, lo, hi, false, qs...)
	if n := rows(); !slices.Equal(n, all(10)) {
		t.Fatalf("rollup rows after 10 batches of one minute and keys: %v", n)
	}
	for i := range s.rollups {
		if left, err := s.rollups[i].compact(ctx, s.db, floorTo(lo, s.rollups[i].width), hi); err != nil || left != 1 {
			t.Fatalf("compacting %s: %d rows left, %v", s.rollups[i].table, left, err)
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
		if err := s.Ingest(ctx, []Record{r}); err != nil {
			t.Fatal(err)
		}
	}
	if n := rows(); !slices.Equal(n, all(2)) || s.spans[0].rows != 1 {
		t.Errorf("after the ingest that made a compaction due and one more: rollup rows %v (want 2 each), %d rows pending (want 1)", n, s.spans[0].rows)
	}
}

// TestRollupSpanDue checks when a rollup's compaction falls due: once it has gained
// compactRows rows, or half the rows its last compaction left when that is more, and that the
// span covers every bucket touched.
func TestRollupSpanDue(t *testing.T) {
	sp := rollupSpan{}
	if sp.add(compactRows-1, 120, 180) || !sp.add(1, 60, 60) || sp.lo != 60 || sp.hi != 180 {
		t.Errorf("after compactRows rows: %+v", sp)
	}
	sp = rollupSpan{left: 6 * compactRows}
	if sp.add(2*compactRows, 0, 0) || !sp.add(compactRows, 0, 0) {
		t.Errorf("after half of the %d rows left: %+v", 6*compactRows, sp)
	}
}
