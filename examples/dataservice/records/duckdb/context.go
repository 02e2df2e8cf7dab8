package duckdb

import (
	"context"
	"database/sql/driver"
	"strconv"
	"strings"

	"github.com/fnapi/fnapi/examples/dataservice/records"

	"github.com/duckdb/duckdb-go/v2"
)

// How DuckDB keeps the context. The records table holds one number for a record's context
// (column context), and the table contexts one row per distinct context: its number and the
// context columns (records.Column.Context: zones, autonomous systems, countries, exporter and
// interface names). A context changes far less often than records arrive, and DuckDB's cost of
// a record grows with its columns, whatever their values (the appender's flush and the
// write-ahead log): the thirteen columns stored with every record made ingest twice as slow
// (BENCHMARKS.md, issue 25). A query whose keys or condition use the context reads the records
// joined to their contexts (contextFrom), or, when it reads the context rollups, the records of
// its period's edges with their numbers, which the store names from memory (contextNames); the
// others read the records alone. The context rollups keep the columns themselves, as they did.
//
// A context's number is a 64-bit FNV-1a hash of its values (contextValues.id), the same in every
// process and file, so ingest needs no lookup: it appends the contexts it has not seen since
// the program started (ON CONFLICT DO NOTHING) in the transaction that appends the records.
// Two distinct contexts of one file share a number with a probability of about n²/2^65 for n
// contexts (3·10^-8 for a million): the second would read as the first. Retention deletes the
// contexts no record holds any more.

// contextsTable holds the distinct contexts of the records.
const contextsTable = "contexts"

// contextColumns are the context's columns, in table order.
var contextColumns = func() []records.Column {
	var cs []records.Column
	for c := range records.NumColumns {
		if c.Context() {
			cs = append(cs, c)
		}
	}
	return cs
}()

// contextFrom is the records with their context columns, as a query reads them when its
// condition uses one, or its keys do and no rollup answers it (records.Dialect.ContextFrom); a
// query by the context that reads rollups gets the records at its period's edges by context
// number instead and names the numbers in Go (context_names.go): DuckDB's join cost a fixed
// 2-3 ms however few the records. An inner join: every record's context is in contexts, and
// DuckDB joins them far faster so (2026-11-26, 10M rows: 240 ms against 810 ms as an outer
// join).
var contextFrom = func() string {
	var b strings.Builder
	b.WriteString("(SELECT records.*")
	for _, c := range contextColumns {
		b.WriteString(", " + contextsTable + "." + c.Name())
	}
	b.WriteString(" FROM records JOIN " + contextsTable + " ON " + contextsTable + ".id = records.context) AS records")
	return b.String()
}()

// contextsSchema is the contexts table.
func contextsSchema() string {
	var b strings.Builder
	b.WriteString("CREATE TABLE IF NOT EXISTS " + contextsTable + " (id UBIGINT PRIMARY KEY")
	for _, c := range contextColumns {
		b.WriteString(", " + c.Name() + " " + duckTypes[c.Kind()] + " NOT NULL")
	}
	b.WriteString(")")
	return b.String()
}

// contextValues are the values of a context's columns, in order.
type contextValues records.ContextValues

// id returns the number of the context of vs: 0 for the empty context, never 0 for another.
// It is 64-bit FNV-1a, written out so that hashing a record's context allocates nothing.
func (vs *contextValues) id() uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	add := func(b byte) { h = (h ^ uint64(b)) * prime }
	uvarint := func(x uint64) {
		for ; x >= 0x80; x >>= 7 {
			add(byte(x) | 0x80)
		}
		add(byte(x))
	}
	empty := true
	for i, c := range contextColumns {
		// Each value is written with its length, so no two contexts write the same bytes.
		if c.Kind() == records.KindString {
			uvarint(uint64(len(vs[i].Str)))
			for j := 0; j < len(vs[i].Str); j++ {
				add(vs[i].Str[j])
			}
			empty = empty && vs[i].Str == ""
		} else {
			uvarint(vs[i].Lo)
			empty = empty && vs[i].Lo == 0
		}
	}
	if empty {
		return 0
	}
	return max(h, 1)
}

// maxKnownContexts bounds the numbers of contexts a store remembers as stored (8 bytes and a
// map entry each, ~40 MB at most): past it, it forgets them all and appends each again, once,
// which the table ignores.
const maxKnownContexts = 1 << 20

// knownContexts are the numbers of the contexts a store has seen committed; only the holder
// of the store's write token uses it.
type knownContexts map[uint64]struct{}

// newContexts appends the number of each record's context of batches to ids, in order, and
// returns them with the contexts not in known, by number.
func (known knownContexts) newContexts(batches [][]records.Record, ids []uint64) ([]uint64, map[uint64]*contextValues) {
	var fresh map[uint64]*contextValues
	for _, recs := range batches {
		for i := range recs {
			var vs contextValues
			for j, c := range contextColumns {
				vs[j] = c.Of(&recs[i])
			}
			id := vs.id()
			ids = append(ids, id)
			if _, ok := known[id]; ok {
				continue
			}
			if fresh == nil {
				fresh = map[uint64]*contextValues{}
			}
			if _, ok := fresh[id]; !ok {
				v := vs // only a new context leaves the loop
				fresh[id] = &v
			}
		}
	}
	return ids, fresh
}

// committed remembers the contexts of fresh as stored.
func (known *knownContexts) committed(fresh map[uint64]*contextValues) {
	if len(*known)+len(fresh) > maxKnownContexts {
		*known = knownContexts{}
	}
	for id := range fresh {
		(*known)[id] = struct{}{}
	}
}

// contextBatch is how many contexts one INSERT appends.
const contextBatch = 200

// insertContexts appends the contexts of fresh to the contexts table with exec, in the
// caller's transaction, leaving alone those it holds.
func insertContexts(fresh map[uint64]*contextValues, exec func(stmt string, args []any) error) error {
	var args []any
	n := 0
	flush := func() error {
		if n == 0 {
			return nil
		}
		row := "(CAST(? AS UBIGINT)" + strings.Repeat(", ?", len(contextColumns)) + ")"
		stmt := "INSERT INTO " + contextsTable + " VALUES " + strings.TrimSuffix(strings.Repeat(row+", ", n), ", ") + " ON CONFLICT DO NOTHING"
		err := exec(stmt, args)
		args, n = args[:0], 0
		return err
	}
	for id, vs := range fresh {
		// database/sql passes no uint64 above math.MaxInt64: the number goes as text.
		args = append(args, strconv.FormatUint(id, 10))
		for i, c := range contextColumns {
			if c.Kind() == records.KindString {
				args = append(args, vs[i].Str)
			} else {
				args = append(args, int64(vs[i].Lo))
			}
		}
		if n++; n == contextBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// connExec is insertContexts' exec on a driver connection.
func connExec(ctx context.Context, c *duckdb.Conn) func(string, []any) error {
	return func(stmt string, args []any) error {
		named := make([]driver.NamedValue, len(args))
		for i, a := range args {
			named[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
		}
		_, err := c.ExecContext(ctx, stmt, named)
		return err
	}
}
