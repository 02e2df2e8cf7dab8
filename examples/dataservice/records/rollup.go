package records

import (
	"slices"
	"strings"
)

// Rollup describes one rollup: the records summed per bucket of width seconds (a row's time
// is its bucket's first second, a multiple of width) and per value of keys, in the table named
// table. A store keeps each of its rollups exactly the sum of its records (rollup_write.go for
// DuckDB), so a query it answers reads the same sums from it as from the records.
//
// A rollup kept in the background (background true; rollup_mark.go) is exact only below its
// mark, the time through which it is rolled up, stored beside it: a background step sums whole
// buckets of the records into it and advances the mark, an ingest adds to it only the records
// below the mark (late ones), and a query reads it only below the mark. The others are kept in
// each ingest's transaction and are exact at every time.
//
// A rollup with Measures also keeps the capture probe's sums (RollupMeasures) and histograms
// (RollupHists) after the record count: its rows answer averages and percentiles of the times
// as they answer traffic. Without, a query of them reads the records.
//
// A rollup ForHists is read only by queries that merge histograms (Query.Hists), whose cost
// is the entries of the rows they read: it saves them entries, where for sums alone the union
// branches it adds to a statement cost more than the rows it saves.
type Rollup struct {
	Table      string
	Width      int64
	Keys       []Column
	Background bool
	Measures   bool
	ForHists   bool
	// Layer is the layer of the records the rollup sums (LayerTransport unless set): a Query
	// of another layer never reads it.
	Layer Layer
	// HistBytes, with Measures, keeps the histograms as bytes (AppendHistBytes) in columns of
	// the dialect's BytesType, where the others keep arrays of entries: a query's branch over
	// the rollup gives them apart (Dialect.HistBranch) and the reader adds them up.
	HistBytes bool
}

// ContextKeys are the keys of the rollups of the context (zones, autonomous systems and
// countries, which dashboards group by) that every engine keeps, with the protocol (FROM tcp).
// Not the application: with it the hourly rollup of 10M demo records over 24 hours held 4 times
// the rows of the one by application, and a query by AS number took 1.6 times as long as one by
// application (BENCHMARKS.md); a query that also groups or filters by application, or by the
// names of exporters and interfaces, reads the records. Released in a schema step: never
// changed (a new set of keys is a new rollup).
// They are the protocol and the columns of the sides' Places, client's and server's zones, AS
// numbers and names, and countries, in table order.
var ContextKeys = append([]Column{ColProtocol}, ColumnRange(ColClientZone, ColServerCountry)...)

// RollupSums are the summed columns of a rollup, in table order after the keys; a last
// column, records, counts the records.
var RollupSums = []Column{ColClientBytes, ColClientPackets, ColServerBytes, ColServerPackets}

// RollupMeasures are the capture probe's summed columns that a rollup with Measures keeps, in
// table order after the record count: each time's sum of microseconds and samples, then the
// retransmissions, zero windows and resets. Released in a schema step: never changed (a new
// measure is a new step).
var RollupMeasures = []Column{ColClientRTT, ColClientRTTSamples, ColServerRTT, ColServerRTTSamples,
	ColCT, ColCTSamples, ColSRT, ColSRTSamples, ColDTT, ColDTTSamples,
	ColClientRetrans, ColServerRetrans, ColClientZeroWindows, ColServerZeroWindows, ColResets}

// RollupHists are the histograms a rollup with Measures keeps, after RollupMeasures: each the
// merged entries (hist.go) of the row's records, one entry per bucket by increasing index.
var RollupHists = []Column{ColClientRTTHist, ColServerRTTHist, ColCTHist, ColSRTHist, ColDTTHist}

// Holds reports whether c is one of the rollup's keys.
func (r *Rollup) Holds(c Column) bool { return slices.Contains(r.Keys, c) }

// answers reports whether the rollup can answer the whole buckets of q's period: q merges a
// histogram when the rollup is ForHists, each of q's sums and histograms is one the rollup
// keeps (RollupSums or the record count; with Measures, RollupMeasures and RollupHists), each
// of its groups is a key of the rollup or a time bucket of whole rollup buckets, and q's Where
// reads keys of the rollup only. A query of a sum the rollup lacks reads the records, as does
// one of a layer other than the rollup's (a rollup holds the records of its Layer only).
func (r *Rollup) answers(q *Query) bool {
	if q.Layer != r.Layer {
		return false
	}
	if r.ForHists && len(q.Hists) == 0 {
		return false
	}
	for _, h := range q.Hists {
		if !r.Measures || !slices.Contains(RollupHists, h) {
			return false
		}
	}
	for _, s := range q.Sums {
		if col := sumColumn[s]; col >= 0 && !r.keeps(col) {
			return false
		}
	}
	for _, g := range q.Groups {
		if g.Bucket > 0 && g.Bucket%r.Width != 0 || g.Bucket == 0 && !r.Holds(g.Column) {
			return false
		}
	}
	return q.Where == nil || r.reads(q.Where)
}

// keeps reports whether the rollup keeps the sums of col.
func (r *Rollup) keeps(col Column) bool {
	return slices.Contains(RollupSums, col) || r.Measures && slices.Contains(RollupMeasures, col)
}

// reads reports whether c reads keys of the rollup only.
func (r *Rollup) reads(c Cond) bool {
	return !condUses(c, func(col Column) bool { return !r.Holds(col) })
}

// Chain returns, for each width of rollups from the finest, the first rollup there that
// answers q, but for one that keeps a key the finer one before it lacks; none when q reads
// columns no rollup holds. A coarser rollup of the same keys never has more rows for a span
// than a finer one, while one of more keys may (per 10 minutes with addresses: 850 rows where
// the per-minute one without has 260), so a query by application reads per minute and per
// hour, never per 10 minutes with addresses.
func Chain(rollups []Rollup, q *Query) []*Rollup {
	var first []*Rollup
	for i := range rollups {
		r := &rollups[i]
		if r.answers(q) && !slices.ContainsFunc(first, func(o *Rollup) bool { return o.Width == r.Width }) {
			first = append(first, r)
		}
	}
	slices.SortStableFunc(first, func(a, b *Rollup) int { return int(a.Width - b.Width) })
	var out []*Rollup
	for _, r := range first {
		if len(out) == 0 || !slices.ContainsFunc(r.Keys, func(c Column) bool { return !out[len(out)-1].Holds(c) }) {
			out = append(out, r)
		}
	}
	return out
}

// Columns returns the rollup's SQL columns in table order, with their kinds: time, the keys
// (an address as its two halves), the sums, the record count, and with Measures the
// RollupMeasures and RollupHists.
func (r *Rollup) Columns() (names []string, kinds []Kind) {
	names, kinds = []string{"time"}, []Kind{KindInt64}
	add := func(cols []Column) {
		for _, c := range cols {
			for _, n := range c.SQLNames() {
				k := c.Kind()
				if k == KindAddr {
					k = KindUint64
				}
				names, kinds = append(names, n), append(kinds, k)
			}
		}
	}
	add(r.Keys)
	add(RollupSums)
	names, kinds = append(names, "records"), append(kinds, KindUint64)
	if r.Measures {
		add(RollupMeasures)
		add(RollupHists)
	}
	return names, kinds
}

// KeyNames returns the SQL columns of the rollup's keys.
func (r *Rollup) KeyNames() []string {
	var out []string
	for _, c := range r.Keys {
		out = append(out, c.SQLNames()...)
	}
	return out
}

// ColumnTypes returns the rollup's SQL columns in table order with their types in dialect d
// ("name type"): the summed ones of the dialect's sumType.
func (r *Rollup) ColumnTypes(d *Dialect) []string {
	names, kinds := r.Columns()
	cols := make([]string, len(names))
	for i, n := range names {
		t := d.Types[kinds[i]]
		if slices.ContainsFunc(RollupSums, func(c Column) bool { return c.Name() == n }) ||
			r.Measures && slices.ContainsFunc(RollupMeasures, func(c Column) bool { return c.Name() == n }) {
			t = d.SumType
		}
		if r.HistBytes && kinds[i] == KindHist {
			t = d.BytesType
		}
		cols[i] = n + " " + t
	}
	return cols
}

// Schema is the rollup's table in dialect d.
func (r *Rollup) Schema(d *Dialect) string {
	return "CREATE TABLE " + r.Table + " (" + strings.Join(r.ColumnTypes(d), " NOT NULL, ") + " NOT NULL)"
}

// FloorTo and ceilTo round t down and up to a multiple of n, for negative times too.
func FloorTo(t, n int64) int64 { return t - ((t%n)+n)%n }
func CeilTo(t, n int64) int64  { return -FloorTo(-t, n) }
