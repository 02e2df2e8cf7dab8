package records

import (
	"strings"
	"testing"
)

// TestCompileSharesOnePassPerWhere checks how queries are planned: those of one Where in one
// SELECT with grouping sets in DuckDB, one SELECT per key set in ClickHouse, and queries of
// another Where in a part of their own.
func TestCompileSharesOnePassPerWhere(t *testing.T) {
	tcp := Compare{Column: ColProtocol, Op: Eq, Value: Value{Lo: 6}}
	qs := []*Query{
		{Sums: []Sum{SumClientBytes}},
		{Groups: []Group{{Column: ColApplication}}, Sums: []Sum{SumServerBytes}, Limit: 11},
		{Groups: []Group{{Bucket: 60}}, Sums: []Sum{SumRecords}},
		{Groups: []Group{{Column: ColServerIP}, {Column: ColApplication}}, Sums: []Sum{SumRecords, SumClientBytes}},
		{Groups: []Group{{Column: ColApplication}}, Sums: []Sum{SumRecords}, Where: tcp},
	}
	duck := compile(duckDialect, "records", rollupTable, qs)
	if len(duck.parts) != 2 {
		t.Fatalf("DuckDB plan has %d parts, want 2 (one per Where)", len(duck.parts))
	}
	shared := duck.parts[0]
	if !strings.Contains(shared.query, "GROUPING SETS") || len(shared.sets) != 4 || len(shared.setOf) != 4 {
		t.Errorf("shared part: %d sets, %d GROUPING values, SQL %s", len(shared.sets), len(shared.setOf), shared.query)
	}
	if strings.Contains(shared.query, "LIMIT") {
		t.Errorf("a shared part limits the rows of every set: %s", shared.query)
	}
	if shared.sums != 3 {
		t.Errorf("shared part reads %d sums, want the 3 its queries use", shared.sums)
	}
	if alone := duck.parts[1]; strings.Contains(alone.query, "GROUPING") || !strings.Contains(alone.query, "protocol") {
		t.Errorf("the tcp part: %s", alone.query)
	}
	ch := compile(chDialect, "records", "", qs)
	if len(ch.parts) != 5 {
		t.Fatalf("ClickHouse plan has %d parts, want 5 (one per key set and Where)", len(ch.parts))
	}
	for _, p := range ch.parts {
		if strings.Contains(p.query, "GROUPING") {
			t.Errorf("ClickHouse part uses grouping sets: %s", p.query)
		}
	}
	if !strings.Contains(ch.parts[1].query, "LIMIT 11") {
		t.Errorf("a query alone in its set keeps its limit: %s", ch.parts[1].query)
	}
}
