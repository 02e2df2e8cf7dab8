package records

import (
	"strings"
	"testing"
)

// TestCompileSharesOnePassPerWhere checks how queries are planned: in DuckDB those of one Where
// in one SELECT with grouping sets, apart for the key sets the rollup holds and those it does
// not; in ClickHouse one SELECT per key set; queries of another Where in parts of their own.
func TestCompileSharesOnePassPerWhere(t *testing.T) {
	tcp := Compare{Column: ColProtocol, Op: Eq, Value: Value{Lo: 6}}
	qs := []*Query{
		{Sums: []Sum{SumClientBytes}},
		{Groups: []Group{{Column: ColApplication}}, Sums: []Sum{SumServerBytes}, Limit: 11},
		{Groups: []Group{{Bucket: 60}}, Sums: []Sum{SumRecords}},
		{Groups: []Group{{Column: ColServerIP}, {Column: ColApplication}}, Sums: []Sum{SumRecords, SumClientBytes}},
		{Groups: []Group{{Column: ColApplication}}, Sums: []Sum{SumRecords}, Where: tcp},
		{Groups: []Group{{Column: ColClientIP}}, Sums: []Sum{SumServerPackets}},
	}
	duck := compile(duckDialect, "records", rollupTable, qs)
	if len(duck.parts) != 3 {
		t.Fatalf("DuckDB plan has %d parts, want 3 (rollup and records for one Where, rollup for the other)", len(duck.parts))
	}
	for i, want := range []struct {
		sets, sums int
		rollup     bool
	}{{3, 3, true}, {2, 3, false}, {1, 1, true}} {
		p := duck.parts[i]
		if len(p.sets) != want.sets || p.sums != want.sums || (p.rollup != nil) != want.rollup {
			t.Errorf("part %d: %d sets, %d sums, rollup %v; want %+v", i, len(p.sets), p.sums, p.rollup != nil, want)
		}
		if shared := strings.Contains(p.query, "GROUPING SETS"); shared != (want.sets > 1) || len(p.setOf) != len(p.sets) && shared {
			t.Errorf("part %d, %d sets: %s", i, want.sets, p.query)
		}
		if want.sets > 1 && strings.Contains(p.query, "LIMIT") {
			t.Errorf("part %d limits the rows of every set: %s", i, p.query)
		}
		if p.rollup != nil && !strings.Contains(p.rollup.query, rollupTable) {
			t.Errorf("part %d's rollup reads %s", i, p.rollup.query)
		}
	}
	if !strings.Contains(duck.parts[2].query, "protocol") {
		t.Errorf("the tcp part: %s", duck.parts[2].query)
	}
	ch := compile(chDialect, "records", "", qs)
	if len(ch.parts) != 6 {
		t.Fatalf("ClickHouse plan has %d parts, want 6 (one per key set and Where)", len(ch.parts))
	}
	for _, p := range ch.parts {
		if strings.Contains(p.query, "GROUPING") || p.rollup != nil {
			t.Errorf("ClickHouse part uses grouping sets or a rollup: %s", p.query)
		}
	}
	if !strings.Contains(ch.parts[1].query, "LIMIT 11") {
		t.Errorf("a query alone in its set keeps its limit: %s", ch.parts[1].query)
	}
}
