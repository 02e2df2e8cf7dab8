package records

import (
	"slices"
	"strconv"
	"strings"
)

// rollup describes one rollup: the records summed per bucket of width seconds (a row's time
// is its bucket's first second, a multiple of width) and per value of keys, in the table named
// table. A store keeps each of its rollups exactly the sum of its records (rollup_write.go for
// DuckDB), so a query it answers reads the same sums from it as from the records.
//
// A rollup kept in the background (background true; rollup_mark.go) is exact only below its
// mark, the time through which it is rolled up, stored beside it: a background step sums whole
// buckets of the records into it and advances the mark, an ingest adds to it only the records
// below the mark (late ones), and a query reads it only below the mark. The others are kept in
// each ingest's transaction and are exact at every time.
type rollup struct {
	table      string
	width      int64
	keys       []Column
	background bool
	// duckOnly is true for a rollup only DuckDB keeps (chRollups).
	duckOnly bool
}

// rollupSums are the summed columns of a rollup, in table order after the keys; a last
// column, records, counts the records.
var rollupSums = []Column{ColClientBytes, ColClientPackets, ColServerBytes, ColServerPackets}

// duckRollups are DuckDB's rollups, the keys dashboards group and filter by most. Widths nest:
// each divides every larger one. At each width a query reads the first rollup there that
// answers it, so the smaller (fewer keys) comes first.
//
// The hourly one with both addresses pays because its keys leave out the client port and the
// minute: on the demo network it holds 1/450 of the rows of 10M records over 24 hours and 1/22
// over 30 days (a per-minute one with addresses would hold 1/12 and 1/2, so none is kept).
//
// That one is kept in the background: summed in each ingest it gained nearly a row per record
// (every new client address) and halved ingest. The two without addresses gain a few rows per
// batch and stay in the transaction (measured: BENCHMARKS.md, issue 13), so a query by
// application reads them up to the newest record.
//
// The one per 10 minutes with addresses (1/82 of the rows of 10M records over 24 hours) is there
// for the edges of a period by address: without it, the cut hour at each end, up to 70 minutes
// of records at the newest end (the hourly one is rolled 10 minutes after its hour ends), was
// read from the records, most of such a statement's cost; with it, 10 to 20 minutes at the
// newest end and under 10 at the oldest. It is kept in the background too, and by DuckDB only:
// ClickHouse's views keep its rollups on every insert, where one this fine would cost about
// what the records do.
var duckRollups = []rollup{
	{table: "records_minute", width: 60, keys: []Column{ColProtocol, ColApplication, ColServerPort}},
	{table: "records_hour", width: 3600, keys: []Column{ColProtocol, ColApplication, ColServerPort}},
	{table: "records_hour_hosts", width: 3600, keys: hostKeys, background: true},
	{table: "records_10min_hosts", width: 600, keys: hostKeys, background: true, duckOnly: true},
}

// hostKeys are the keys of the rollups with addresses.
var hostKeys = []Column{ColProtocol, ColApplication, ColServerPort, ColServerIP, ColClientIP}

// holds reports whether c is one of the rollup's keys.
func (r *rollup) holds(c Column) bool { return slices.Contains(r.keys, c) }

// answers reports whether the rollup can answer the whole buckets of q's period: each of q's
// groups is a key of the rollup or a time bucket of whole rollup buckets, and q's Where reads
// keys of the rollup only.
func (r *rollup) answers(q *Query) bool {
	for _, g := range q.Groups {
		if g.Bucket > 0 && g.Bucket%r.width != 0 || g.Bucket == 0 && !r.holds(g.Column) {
			return false
		}
	}
	return q.Where == nil || r.reads(q.Where)
}

// reads reports whether c reads keys of the rollup only.
func (r *rollup) reads(c Cond) bool {
	var terms []Cond
	switch c := c.(type) {
	case And:
		terms = c
	case Or:
		terms = c
	case Not:
		return r.reads(c.Cond)
	case Compare:
		return r.holds(c.Column)
	case Range:
		return r.holds(c.Column)
	case In:
		return r.holds(c.Column)
	}
	for _, t := range terms {
		if !r.reads(t) {
			return false
		}
	}
	return true
}

// chain returns, for each width of rollups from the finest, the first rollup there that
// answers q, but for one that keeps a key the finer one before it lacks; none when q reads
// columns no rollup holds. A coarser rollup of the same keys never has more rows for a span
// than a finer one, while one of more keys may (per 10 minutes with addresses: 850 rows where
// the per-minute one without has 260), so a query by application reads per minute and per
// hour, never per 10 minutes with addresses.
func chain(rollups []rollup, q *Query) []*rollup {
	var first []*rollup
	for i := range rollups {
		r := &rollups[i]
		if r.answers(q) && !slices.ContainsFunc(first, func(o *rollup) bool { return o.width == r.width }) {
			first = append(first, r)
		}
	}
	slices.SortStableFunc(first, func(a, b *rollup) int { return int(a.width - b.width) })
	var out []*rollup
	for _, r := range first {
		if len(out) == 0 || !slices.ContainsFunc(r.keys, func(c Column) bool { return !out[len(out)-1].holds(c) }) {
			out = append(out, r)
		}
	}
	return out
}

// columns returns the rollup's SQL columns in table order, with their kinds: time, the keys
// (an address as its two halves), the sums and the record count.
func (r *rollup) columns() (names []string, kinds []Kind) {
	names, kinds = []string{"time"}, []Kind{KindInt64}
	for _, c := range append(slices.Clip(r.keys), rollupSums...) {
		for _, n := range c.sqlNames() {
			k := c.Kind()
			if k == KindAddr {
				k = KindUint64
			}
			names, kinds = append(names, n), append(kinds, k)
		}
	}
	return append(names, "records"), append(kinds, KindUint64)
}

// keyNames returns the SQL columns of the rollup's keys.
func (r *rollup) keyNames() []string {
	var out []string
	for _, c := range r.keys {
		out = append(out, c.sqlNames()...)
	}
	return out
}

// columnTypes returns the rollup's SQL columns in table order with their types in dialect d
// ("name type"): the summed ones of the dialect's sumType.
func (r *rollup) columnTypes(d *dialect) []string {
	names, kinds := r.columns()
	cols := make([]string, len(names))
	for i, n := range names {
		t := d.types[kinds[i]]
		if slices.ContainsFunc(rollupSums, func(c Column) bool { return c.Name() == n }) {
			t = d.sumType
		}
		cols[i] = n + " " + t
	}
	return cols
}

// schema is the rollup's table in dialect d.
func (r *rollup) schema(d *dialect) string {
	return "CREATE TABLE " + r.table + " (" + strings.Join(r.columnTypes(d), " NOT NULL, ") + " NOT NULL)"
}

// sumRecords is the SQL that sums the records of a WHERE clause (with its arguments) into the
// rollup's rows in DuckDB, each sum saturated at MaxSum.
func (r *rollup) sumRecords(where string) string {
	w := strconv.FormatInt(r.width, 10)
	var sums []string
	for _, c := range rollupSums {
		sums = append(sums, duckDialect.partial(c.Name()))
	}
	keys := strings.Join(r.keyNames(), ", ")
	return "SELECT " + bucketStart(w) + " AS b, " + keys + ", " + strings.Join(sums, ", ") +
		", CAST(COUNT(*) AS UBIGINT) FROM records WHERE " + where + " GROUP BY b, " + keys
}

// floorTo and ceilTo round t down and up to a multiple of n, for negative times too.
func floorTo(t, n int64) int64 { return t - ((t%n)+n)%n }
func ceilTo(t, n int64) int64  { return -floorTo(-t, n) }
