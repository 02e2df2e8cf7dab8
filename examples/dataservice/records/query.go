package records

import (
	"context"
	"slices"

	"github.com/fnapi/fnapi/examples/dataservice/histogram"
)

// Query is a grouped sum over the records of a period, in no store's dialect: the query
// engine (package pvql) builds one per statement, a Store compiles it once to its own SQL
// (Compile) and reads it for each part of the period (Read).
type Query struct {
	// Groups are the grouping keys in order; none gives one row.
	Groups []Group
	// Sums are the base sums read for each group, in order.
	Sums []Sum
	// Hists are histogram columns (KindHist) merged for each group, in order (Row.Hists), from
	// the rollups that keep them (Rollup.Measures) and the records.
	Hists []Column
	// Where restricts the records read besides the period; nil keeps every record.
	Where Cond
	// Layer is the layer of the records read (FROM): the records of that layer only. The
	// rollups hold the transport's records only, so a query of another layer reads the records.
	Layer Layer
	// Limit is the most groups the store returns, with Groups; 0 means no limit. The query
	// engine asks for one more than it allows, to tell an answer that fits from one that does
	// not. A plan read by context number (Dialect.ContextNumber) may return more, each group
	// whole: its reader bounds the groups it merges, as the query engine does.
	Limit int
}

// Group is a grouping key: a column, or with Bucket > 0 the time bucket of Bucket seconds, the
// point T (a multiple of Bucket) covering [T-Bucket, T).
type Group struct {
	Column Column
	Bucket int64
}

// Sum is a base quantity summed per group.
type Sum int

// The base sums.
const (
	SumClientBytes Sum = iota
	SumServerBytes
	SumClientPackets
	SumServerPackets
	SumRecords // the number of records
	// The capture probe's sums: times in microseconds beside their sample counts, and counts.
	SumClientRTT
	SumClientRTTSamples
	SumServerRTT
	SumServerRTTSamples
	SumCT
	SumCTSamples
	SumSRT
	SumSRTSamples
	SumDTT
	SumDTTSamples
	SumClientRetrans
	SumServerRetrans
	SumClientZeroWindows
	SumServerZeroWindows
	SumResets
	// Extremes rather than sums (Extreme): the earliest and the latest known expiry of the
	// TLS layer's server certificates, 0 when no record of the group knows one.
	SumMinTLSNotAfter
	SumMaxTLSNotAfter
	NumSums
)

// sumColumn is the column each sum adds up; SumRecords counts rows.
var sumColumn = [NumSums]Column{
	SumClientBytes:   ColClientBytes,
	SumServerBytes:   ColServerBytes,
	SumClientPackets: ColClientPackets,
	SumServerPackets: ColServerPackets,
	SumRecords:       -1,

	SumClientRTT:         ColClientRTT,
	SumClientRTTSamples:  ColClientRTTSamples,
	SumServerRTT:         ColServerRTT,
	SumServerRTTSamples:  ColServerRTTSamples,
	SumCT:                ColCT,
	SumCTSamples:         ColCTSamples,
	SumSRT:               ColSRT,
	SumSRTSamples:        ColSRTSamples,
	SumDTT:               ColDTT,
	SumDTTSamples:        ColDTTSamples,
	SumClientRetrans:     ColClientRetrans,
	SumServerRetrans:     ColServerRetrans,
	SumClientZeroWindows: ColClientZeroWindows,
	SumServerZeroWindows: ColServerZeroWindows,
	SumResets:            ColResets,
	SumMinTLSNotAfter:    ColTLSNotAfter,
	SumMaxTLSNotAfter:    ColTLSNotAfter,
}

// Value is one value of a column: a number (a time as its int64 bits) in Lo, an address as
// its halves Hi and Lo, a string in Str. Comparing Hi, then Lo, then Str orders values of one
// column as the query language orders keys (but for times, which are signed).
type Value struct {
	Hi, Lo uint64
	Str    string
}

// Cond is a condition on the columns of a record: And, Or, Not, Compare, Range or In.
type Cond interface{ cond() }

// And holds when every term does.
type And []Cond

// Or holds when any term does.
type Or []Cond

// Not holds when its term does not.
type Not struct{ Cond Cond }

// Op is a comparison operator.
type Op int

// Comparison operators.
const (
	Eq Op = iota
	Ne
	Lt
	Le
	Gt
	Ge
)

// Compare holds when the column's value compares to Value with Op; an address compares as a
// 128-bit number.
type Compare struct {
	Column Column
	Op     Op
	Value  Value
}

// Range holds when From <= the column's value <= To (an address range, a CIDR).
type Range struct {
	Column   Column
	From, To Value
}

// In holds when the column's value is one of Values (not for addresses: use Or of Range).
type In struct {
	Column Column
	Values []Value
}

// condUses reports whether c reads a column for which f holds.
func condUses(c Cond, f func(Column) bool) bool {
	var terms []Cond
	switch c := c.(type) {
	case And:
		terms = c
	case Or:
		terms = c
	case Not:
		return condUses(c.Cond, f)
	case Compare:
		return f(c.Column)
	case Range:
		return f(c.Column)
	case In:
		return f(c.Column)
	}
	return slices.ContainsFunc(terms, func(t Cond) bool { return condUses(t, f) })
}

func (And) cond()     {}
func (Or) cond()      {}
func (Not) cond()     {}
func (Compare) cond() {}
func (Range) cond()   {}
func (In) cond()      {}

// Row is one group read by a Query: its keys in Groups order and its sums in Sums order. Read
// reuses a Row's slices between calls of its callback.
type Row struct {
	// Query is the index, among those compiled into the plan, of the Query the row answers.
	Query int
	Keys  []Value
	Sums  []uint64
	// Hists are the histograms of the Query's Hists, in order; each may come in parts over
	// several rows of the group, merged by the reader (histogram.Merge).
	Hists []histogram.Histogram
	// context holds the context keys of a row read by context number (Plan.name).
	context *ContextValues
}

// Reader answers Queries. Implementations are safe for concurrent use.
type Reader interface {
	// Compile turns qs into the store's SQL, once per query expression. Queries with the same
	// Where share one pass over the records where the store can group by several key sets at
	// once (DuckDB); the others are read one after another within Read.
	Compile(qs ...*Query) *Plan
	// Read runs p over the records with from <= time < to and calls fn with each group of
	// each query (Row.Query tells which). A group may come in several rows (read from a
	// rollup and from the records); its sums are theirs added up.
	// An error of fn stops the read and is returned.
	Read(ctx context.Context, p *Plan, from, to int64, fn func(*Row) error) error
	// Newest returns the time of the newest record; ok is false when there is none.
	Newest(ctx context.Context) (t int64, ok bool, err error)
}
