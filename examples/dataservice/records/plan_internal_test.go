package records

import (
	"strings"
	"testing"
)

// TestCompileSharesOnePassPerWhere checks how queries are planned: in DuckDB those of one Where
// and one chain of rollups in one SELECT with grouping sets over the records and over each
// rollup; in ClickHouse one SELECT per key set; queries of another Where in parts of their own.
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
	duck := compile(duckDialect, "records", duckRollups, qs)
	if len(duck.parts) != 4 {
		t.Fatalf("DuckDB plan has %d parts, want 4 (three chains of rollups for one Where, one for the other)", len(duck.parts))
	}
	for i, want := range []struct {
		sets, sums int
		levels     []string
	}{
		{2, 2, []string{"records_minute", "records_hour"}},
		{1, 1, []string{"records_minute"}},
		{2, 3, []string{"records_hour_hosts"}},
		{1, 1, []string{"records_minute", "records_hour"}},
	} {
		p := duck.parts[i]
		if len(p.sets) != want.sets || p.sums != want.sums || len(p.levels) != len(want.levels) {
			t.Errorf("part %d: %d sets, %d sums, %d levels; want %+v", i, len(p.sets), p.sums, len(p.levels), want)
			continue
		}
		if shared := strings.Contains(p.query, "GROUPING SETS"); shared != (want.sets > 1) || len(p.setOf) != len(p.sets) && shared {
			t.Errorf("part %d, %d sets: %s", i, want.sets, p.query)
		}
		if want.sets > 1 && strings.Contains(p.query, "LIMIT") {
			t.Errorf("part %d limits the rows of every set: %s", i, p.query)
		}
		for j, table := range want.levels {
			if !strings.Contains(p.levels[j].plan.query, " FROM "+table+" ") {
				t.Errorf("part %d's level %d reads %s, want %s", i, j, p.levels[j].plan.query, table)
			}
		}
	}
	if !strings.Contains(duck.parts[3].query, "protocol") {
		t.Errorf("the tcp part: %s", duck.parts[3].query)
	}
	ch := compile(chDialect, "records", nil, qs)
	if len(ch.parts) != 6 {
		t.Fatalf("ClickHouse plan has %d parts, want 6 (one per key set and Where)", len(ch.parts))
	}
	for _, p := range ch.parts {
		if strings.Contains(p.query, "GROUPING") || len(p.levels) > 0 {
			t.Errorf("ClickHouse part uses grouping sets or a rollup: %s", p.query)
		}
	}
	if !strings.Contains(ch.parts[1].query, "LIMIT 11") {
		t.Errorf("a query alone in its set keeps its limit: %s", ch.parts[1].query)
	}
}
