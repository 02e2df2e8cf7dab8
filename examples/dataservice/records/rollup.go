package records

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/duckdb/duckdb-go/v2"
)

// The per-minute rollup: the records summed per minute and per value of the keys dashboards
// group and filter by most (rollupKeys), in the table rollupTable, whose time is the first
// second of the minute. Ingest adds each batch's sums in the batch's own transaction (rows of
// one minute and keys may repeat: a query adds them up, and every compactEvery records the
// minutes they touched are compacted into one row each), so the rollup is always exactly the
// records. A Query whose keys are rollup keys or time buckets of whole minutes, and whose
// Where reads rollup keys only, reads the whole minutes of its period from the rollup and the
// cut minutes at either edge from the records.
const (
	rollupTable = "records_minute"
	rollupWidth = 60
)

// rollupKeys are the columns the rollup keeps, in its table order after time.
var rollupKeys = []Column{ColProtocol, ColApplication, ColServerPort}

// rollupSums are the summed columns of the rollup, in table order; records counts records.
var rollupSums = []Column{ColClientBytes, ColClientPackets, ColServerBytes, ColServerPackets}

// rollupSchema is the rollup's DuckDB table.
func rollupSchema() string {
	cols := []string{"time BIGINT NOT NULL"}
	for _, c := range append(rollupKeys[:len(rollupKeys):len(rollupKeys)], rollupSums...) {
		cols = append(cols, c.Name()+" "+duckDialect.types[c.Kind()]+" NOT NULL")
	}
	cols = append(cols, "records UBIGINT NOT NULL")
	return "CREATE TABLE " + rollupTable + " (" + strings.Join(cols, ", ") + ")"
}

// rollupSelect is the SQL that sums the records of a WHERE clause (with its arguments) into
// rollup rows.
func rollupSelect(where string) string {
	minute := "time - ((time % 60) + 60) % 60"
	var keys, sums []string
	for _, c := range rollupKeys {
		keys = append(keys, c.Name())
	}
	for _, c := range rollupSums {
		sums = append(sums, "CAST(SUM("+c.Name()+") AS UBIGINT)")
	}
	return "SELECT " + minute + " AS m, " + strings.Join(keys, ", ") + ", " + strings.Join(sums, ", ") +
		", CAST(COUNT(*) AS UBIGINT) FROM records WHERE " + where + " GROUP BY m, " + strings.Join(keys, ", ")
}

// rollable reports whether q can read whole minutes from the rollup.
func rollable(q *Query) bool {
	for _, g := range q.Groups {
		if g.Bucket > 0 && g.Bucket%rollupWidth != 0 || g.Bucket == 0 && !isRollupKey(g.Column) {
			return false
		}
	}
	return q.Where == nil || condRollable(q.Where)
}

func isRollupKey(c Column) bool {
	for _, k := range rollupKeys {
		if k == c {
			return true
		}
	}
	return false
}

func condRollable(c Cond) bool {
	var terms []Cond
	switch c := c.(type) {
	case And:
		terms = c
	case Or:
		terms = c
	case Not:
		return condRollable(c.Cond)
	case Compare:
		return isRollupKey(c.Column)
	case Range:
		return isRollupKey(c.Column)
	case In:
		return isRollupKey(c.Column)
	}
	for _, t := range terms {
		if !condRollable(t) {
			return false
		}
	}
	return true
}

// floorTo and ceilTo round t down and up to a multiple of n, for negative times too.
func floorTo(t, n int64) int64 { return t - ((t%n)+n)%n }
func ceilTo(t, n int64) int64  { return -floorTo(-t, n) }

// split reads [from, to) with read: the whole minutes from the rollup when p has one, the cut
// minutes at either edge from the records.
func (p *Plan) split(from, to int64, read func(p *Plan, from, to int64) error) error {
	lo, hi := ceilTo(from, rollupWidth), floorTo(to, rollupWidth)
	if p.rollup == nil || lo >= hi {
		return read(p, from, to)
	}
	if from < lo {
		if err := read(p, from, lo); err != nil {
			return err
		}
	}
	if err := read(p.rollup, lo, hi); err != nil {
		return err
	}
	if hi < to {
		return read(p, hi, to)
	}
	return nil
}

// rollupKey and rollupRow are one rollup row being summed in Go.
type rollupKey struct {
	minute   int64
	protocol uint8
	app      string
	port     uint16
}

type rollupRow [5]uint64 // rollupSums in order, then the record count

// appendRollup appends the sums of batches to the rollup through an appender on c, in the
// transaction that appends their records.
func appendRollup(c *duckdb.Conn, batches [][]Record) error {
	sums := map[rollupKey]*rollupRow{}
	for _, recs := range batches {
		addRollup(sums, recs)
	}
	a, err := duckdb.NewAppenderFromConn(c, "", rollupTable)
	if err != nil {
		return err
	}
	for k, s := range sums {
		err = a.AppendRow(k.minute, k.protocol, k.app, k.port, s[0], s[1], s[2], s[3], s[4])
		if err != nil {
			return errors.Join(err, a.Close())
		}
	}
	return a.Close()
}

// addRollup adds the sums of recs to sums.
func addRollup(sums map[rollupKey]*rollupRow, recs []Record) {
	for i := range recs {
		r := &recs[i]
		k := rollupKey{floorTo(r.Time, rollupWidth), r.Protocol, r.Application, r.Server.Port}
		s := sums[k]
		if s == nil {
			s = &rollupRow{}
			sums[k] = s
		}
		s[0] += r.Client.Bytes
		s[1] += r.Client.Packets
		s[2] += r.Server.Bytes
		s[3] += r.Server.Packets
		s[4]++
	}
}

// retainRollup keeps the rollup exact in tx, which deletes the records before t: the minutes
// before t's go, and t's own minute, when t cuts it, is summed anew from the records left in it.
func retainRollup(ctx context.Context, tx *sql.Tx, t int64) error {
	m := floorTo(t, rollupWidth)
	if _, err := tx.ExecContext(ctx, "DELETE FROM "+rollupTable+" WHERE time < ?", m); err != nil {
		return err
	}
	if m == t {
		return nil
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM "+rollupTable+" WHERE time = ?", m); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "INSERT INTO "+rollupTable+" "+rollupSelect("time >= ? AND time < ?"), t, m+rollupWidth)
	return err
}

// ensureRollup creates the rollup when the database has none, summing the records it holds
// (a file of an earlier version), in one transaction: the rollup is there whole or not at all.
func ensureRollup(ctx context.Context, db *sql.DB) error {
	var n int
	err := db.QueryRowContext(ctx, "SELECT count(*) FROM information_schema.tables WHERE table_name = ?", rollupTable).Scan(&n)
	if err != nil || n > 0 {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, rollupSchema()); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO "+rollupTable+" "+rollupSelect("true")); err != nil {
		return err
	}
	return tx.Commit()
}

// compactEvery is how many ingested records trigger a compaction of the rollup minutes they
// touched: rows of one minute and keys written by different batches become one.
const compactEvery = 1_000_000

// rollupSpan is what was ingested since the rollup's last compaction: how many records, and
// the first and last minute they touched.
type rollupSpan struct {
	n      int
	lo, hi int64
}

// add counts recs and reports whether a compaction is due.
func (sp *rollupSpan) add(recs []Record) bool {
	for i := range recs {
		m := floorTo(recs[i].Time, rollupWidth)
		if sp.n == 0 && i == 0 || m < sp.lo {
			sp.lo = m
		}
		if sp.n == 0 && i == 0 || m > sp.hi {
			sp.hi = m
		}
	}
	sp.n += len(recs)
	return sp.n >= compactEvery
}

// compactRollup merges, in one transaction, the rollup rows of each minute and keys from lo
// to hi (both minutes) into one: the sums stay those of the records, in fewer rows.
func compactRollup(ctx context.Context, db *sql.DB, lo, hi int64) error {
	var keys, sums []string
	for _, c := range rollupKeys {
		keys = append(keys, c.Name())
	}
	for _, c := range rollupSums {
		sums = append(sums, "CAST(SUM("+c.Name()+") AS UBIGINT)")
	}
	sums = append(sums, "CAST(SUM(records) AS UBIGINT)")
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, stmt := range []string{
		"CREATE TEMP TABLE rollup_compact AS SELECT time, " + strings.Join(keys, ", ") + ", " + strings.Join(sums, ", ") +
			" FROM " + rollupTable + " WHERE time BETWEEN ? AND ? GROUP BY time, " + strings.Join(keys, ", "),
		"DELETE FROM " + rollupTable + " WHERE time BETWEEN ? AND ?",
		"INSERT INTO " + rollupTable + " SELECT * FROM rollup_compact",
		"DROP TABLE rollup_compact",
	} {
		var args []any
		if strings.Contains(stmt, "?") {
			args = []any{lo, hi}
		}
		if _, err := tx.ExecContext(ctx, stmt, args...); err != nil {
			return err
		}
	}
	return tx.Commit()
}
