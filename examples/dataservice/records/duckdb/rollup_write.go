package duckdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"net/netip"
	"slices"

	"github.com/fnapi/fnapi/examples/dataservice/histogram"
	"github.com/fnapi/fnapi/examples/dataservice/records"

	"github.com/duckdb/duckdb-go/v2"
)

// How DuckDB keeps its rollups exact. Ingest sums each group commit's records per bucket and
// keys in Go and appends the sums to every rollup in the transaction that appends the records,
// so a reader sees a batch in the records and in every rollup, or nowhere; to a rollup kept in
// the background only the records before its mark (rollup_mark.go). Rows of one bucket and keys
// may repeat (one per batch that touched them): a query adds them up, and a compaction merges
// them (compactRollup, due once a rollup has gained half as many rows as its last compaction
// left, and at least compactRows). Retention deletes the buckets before the retention time and
// sums the bucket it cuts anew from the records left in it, when that bucket is before the
// rollup's mark. A database of an earlier version gains each rollup it lacks when opened
// (ensureRollups).

// rollupKey is a rollup row's bucket and keys while a batch is summed: the columns a rollup
// may keep. A column not among a rollup's keys holds its zero value. Another key column is a
// field here, in recordKey, and a row of rollupKeyColumns (TestRollupsDescribed fails until it
// is).
type rollupKey struct {
	time           int64
	protocol       uint8
	port           uint16
	app            string
	server, client netip.Addr
	ctx            contextKey
}

// contextKey is the context a rollup may keep (records.Place of each side).
type contextKey struct {
	clientZone, serverZone       string
	clientASN, serverASN         uint32
	clientASName, serverASName   string
	clientCountry, serverCountry string
}

// recordKey is the key of r in a rollup of width 1 that keeps every column.
func recordKey(r *records.Record) rollupKey {
	return rollupKey{r.Time, r.Protocol, r.Server.Port, r.Application, r.Server.IP, r.Client.IP,
		contextKey{r.Client.Zone, r.Server.Zone, r.Client.ASN, r.Server.ASN, r.Client.ASName, r.Server.ASName,
			r.Client.Country, r.Server.Country}}
}

// rollupKeyColumn is how a rollupKey holds one key column: keep copies its value from src
// into dst, and appendTo appends it to a row of a rollup's table (an address as its two
// halves). They take pointers, so a rollupKey passed to them escapes: callers pass ones they
// reuse for every record rather than one per record.
type rollupKeyColumn struct {
	keep     func(dst, src *rollupKey)
	appendTo func(row []driver.Value, k *rollupKey) []driver.Value
}

// rollupKeyColumns describes each column a rollup may keep; the other columns have no entry.
var rollupKeyColumns = [records.NumColumns]rollupKeyColumn{
	records.ColProtocol: {
		keep:     func(dst, src *rollupKey) { dst.protocol = src.protocol },
		appendTo: func(row []driver.Value, k *rollupKey) []driver.Value { return append(row, k.protocol) },
	},
	records.ColServerPort: {
		keep:     func(dst, src *rollupKey) { dst.port = src.port },
		appendTo: func(row []driver.Value, k *rollupKey) []driver.Value { return append(row, k.port) },
	},
	records.ColApplication: {
		keep:     func(dst, src *rollupKey) { dst.app = src.app },
		appendTo: func(row []driver.Value, k *rollupKey) []driver.Value { return append(row, k.app) },
	},
	records.ColServerIP: {
		keep:     func(dst, src *rollupKey) { dst.server = src.server },
		appendTo: func(row []driver.Value, k *rollupKey) []driver.Value { return appendHalves(row, k.server) },
	},
	records.ColClientIP: {
		keep:     func(dst, src *rollupKey) { dst.client = src.client },
		appendTo: func(row []driver.Value, k *rollupKey) []driver.Value { return appendHalves(row, k.client) },
	},
	records.ColClientZone: {
		keep:     func(dst, src *rollupKey) { dst.ctx.clientZone = src.ctx.clientZone },
		appendTo: func(row []driver.Value, k *rollupKey) []driver.Value { return append(row, k.ctx.clientZone) },
	},
	records.ColServerZone: {
		keep:     func(dst, src *rollupKey) { dst.ctx.serverZone = src.ctx.serverZone },
		appendTo: func(row []driver.Value, k *rollupKey) []driver.Value { return append(row, k.ctx.serverZone) },
	},
	records.ColClientASN: {
		keep:     func(dst, src *rollupKey) { dst.ctx.clientASN = src.ctx.clientASN },
		appendTo: func(row []driver.Value, k *rollupKey) []driver.Value { return append(row, k.ctx.clientASN) },
	},
	records.ColServerASN: {
		keep:     func(dst, src *rollupKey) { dst.ctx.serverASN = src.ctx.serverASN },
		appendTo: func(row []driver.Value, k *rollupKey) []driver.Value { return append(row, k.ctx.serverASN) },
	},
	records.ColClientASName: {
		keep:     func(dst, src *rollupKey) { dst.ctx.clientASName = src.ctx.clientASName },
		appendTo: func(row []driver.Value, k *rollupKey) []driver.Value { return append(row, k.ctx.clientASName) },
	},
	records.ColServerASName: {
		keep:     func(dst, src *rollupKey) { dst.ctx.serverASName = src.ctx.serverASName },
		appendTo: func(row []driver.Value, k *rollupKey) []driver.Value { return append(row, k.ctx.serverASName) },
	},
	records.ColClientCountry: {
		keep:     func(dst, src *rollupKey) { dst.ctx.clientCountry = src.ctx.clientCountry },
		appendTo: func(row []driver.Value, k *rollupKey) []driver.Value { return append(row, k.ctx.clientCountry) },
	},
	records.ColServerCountry: {
		keep:     func(dst, src *rollupKey) { dst.ctx.serverCountry = src.ctx.serverCountry },
		appendTo: func(row []driver.Value, k *rollupKey) []driver.Value { return append(row, k.ctx.serverCountry) },
	},
}

// appendHalves appends a's two 64-bit halves (Halves), as its two SQL columns hold it.
func appendHalves(row []driver.Value, a netip.Addr) []driver.Value {
	hi, lo := records.Halves(a)
	return append(row, hi, lo)
}

// key sets dst to k in the rollup: its bucket, and the rollup's keys only.
func keepKey(ru *records.Rollup, dst, k *rollupKey) {
	*dst = rollupKey{time: records.FloorTo(k.time, ru.Width)}
	for _, c := range ru.Keys {
		rollupKeyColumns[c].keep(dst, k)
	}
}

// appendKey appends k's values of the rollup's key columns, in table order, to row.
func appendKey(ru *records.Rollup, row []driver.Value, k *rollupKey) []driver.Value {
	for _, c := range ru.Keys {
		row = rollupKeyColumns[c].appendTo(row, k)
	}
	return row
}

// rollupRow is the sums of one rollup row: in sums records.RollupSums in order, the record
// count, then records.RollupMeasures, each saturated at MaxSum as the table keeps them; in
// hists the merged records.RollupHists. A rollup without Measures writes the first five sums.
type rollupRow struct {
	sums  [5 + 15]uint64
	hists [5]histogram.Histogram
}

func (s *rollupRow) add(o *rollupRow) {
	for i := range s.sums {
		s.sums[i] = records.AddSum(s.sums[i], o.sums[i])
	}
	for i := range s.hists {
		for _, b := range o.hists[i].Buckets() {
			addSat(&s.hists[i], b.Index, b.Count)
		}
	}
}

// addSat adds n to bucket i of h, its count saturated at records.MaxHistCount, as a rollup's
// entry keeps it (and mergeHists in SQL): an attacker's records of MaxCount samples never wrap
// it around.
func addSat(h *histogram.Histogram, i uint16, n uint64) {
	bs := h.Buckets()
	var have uint64
	if j, ok := slices.BinarySearchFunc(bs, i, func(b histogram.Bucket, i uint16) int { return int(b.Index) - int(i) }); ok {
		have = bs[j].Count
	}
	h.AddIndex(i, min(n, records.MaxHistCount-min(have, records.MaxHistCount)))
}

// addRecord adds r's sums, and its histograms when measures, to the row.
func (s *rollupRow) addRecord(r *records.Record, measures bool) {
	s.sums[0] = records.AddSum(s.sums[0], r.Client.Bytes)
	s.sums[1] = records.AddSum(s.sums[1], r.Client.Packets)
	s.sums[2] = records.AddSum(s.sums[2], r.Server.Bytes)
	s.sums[3] = records.AddSum(s.sums[3], r.Server.Packets)
	s.sums[4]++
	if !measures {
		return
	}
	for i, v := range [15]uint64{r.Client.RTT.Sum, r.Client.RTT.Samples, r.Server.RTT.Sum, r.Server.RTT.Samples,
		r.CT.Sum, r.CT.Samples, r.SRT.Sum, r.SRT.Samples, r.DTT.Sum, r.DTT.Samples,
		r.Client.Retrans, r.Server.Retrans, r.Client.ZeroWindows, r.Server.ZeroWindows, r.Resets} {
		s.sums[5+i] = records.AddSum(s.sums[5+i], v)
	}
	for i, t := range [5]*records.Timing{&r.Client.RTT, &r.Server.RTT, &r.CT, &r.SRT, &r.DTT} {
		addTiming(&s.hists[i], t)
	}
}

// addTiming adds t's samples to h as records.Timing.Buckets gives them, without allocating a
// histogram for a time that came averaged.
func addTiming(h *histogram.Histogram, t *records.Timing) {
	switch {
	case t.Samples == 0:
	case t.Hist.Count() > 0:
		for _, b := range t.Hist.Buckets() {
			addSat(h, b.Index, b.Count)
		}
	default:
		avg, _ := t.Seconds()
		addSat(h, histogram.Index(avg), t.Samples)
	}
}

// rollupSource is the earlier rollup of rs that rs[i] is summed from (one whose width divides
// rs[i]'s and that keeps every key of rs[i]), or -1 when rs[i] is summed from the records.
func rollupSource(rs []records.Rollup, i int) int {
	for j := range i {
		if rs[i].Width%rs[j].Width == 0 && !slices.ContainsFunc(rs[i].Keys, func(c records.Column) bool { return !rs[j].Holds(c) }) {
			return j
		}
	}
	return -1
}

// sumBatches sums the records of batches before marks[i] into the rows of each rollup rs[i]:
// from the records, or from the rows of an earlier, finer rollup that keeps every key
// (rollupSource) and no fewer records, which are fewer.
func sumBatches(rs []records.Rollup, marks []int64, batches [][]records.Record) []map[rollupKey]*rollupRow {
	out := make([]map[rollupKey]*rollupRow, len(rs))
	var k, rk rollupKey // reused for every record: key's pointers make them escape
	for i := range rs {
		out[i] = map[rollupKey]*rollupRow{}
		if j := rollupSource(rs, i); j >= 0 && marks[j] >= marks[i] {
			for jk, s := range out[j] {
				if jk.time < marks[i] {
					k = jk
					keepKey(&rs[i], &rk, &k)
					rowAt(out[i], rk).add(s)
				}
			}
			continue
		}
		for _, recs := range batches {
			for ri := range recs {
				r := &recs[ri]
				if r.Time >= marks[i] {
					continue
				}
				k = recordKey(r)
				keepKey(&rs[i], &rk, &k)
				rowAt(out[i], rk).addRecord(r, rs[i].Measures)
			}
		}
	}
	return out
}

// hasMeasures reports whether a record of batches has a measure (records.RollupMeasures).
func hasMeasures(batches [][]records.Record) bool {
	for _, recs := range batches {
		if records.Filled(recs, measureMask) != 0 {
			return true
		}
	}
	return false
}

// measureMask has the bit (1 << c) of each of records.RollupMeasures.
var measureMask = func() uint64 {
	var m uint64
	for _, c := range records.RollupMeasures {
		m |= 1 << c
	}
	return m
}()

// rollupAppender returns an appender of rows of r on c: without measures, one that leaves the
// measures and histograms of a rollup keeping them to their defaults, zero and the empty list
// (schema step 9 gave them), as the rows of a batch of flow records hold: DuckDB's Go
// appender costs far more to append them (five lists a row) than its defaults do.
func rollupAppender(c *duckdb.Conn, r *records.Rollup, measures bool) (*duckdb.Appender, error) {
	if !r.Measures || measures {
		return duckdb.NewAppenderFromConn(c, "", r.Table)
	}
	names, _ := r.Columns()
	return duckdb.NewAppenderWithColumns(c, "", "", r.Table, names[:len(names)-len(records.RollupMeasures)-len(records.RollupHists)])
}

func rowAt(m map[rollupKey]*rollupRow, k rollupKey) *rollupRow {
	s := m[k]
	if s == nil {
		s = &rollupRow{}
		m[k] = s
	}
	return s
}

// appendRollups appends the sums of batches before marks[i] to each rollup rs[i] through
// appenders on c, in the transaction that appends their records; it returns how many rows each
// rollup gained.
func appendRollups(c *duckdb.Conn, rs []records.Rollup, marks []int64, batches [][]records.Record) ([]int, error) {
	sums := sumBatches(rs, marks, batches)
	rows := make([]int, len(rs))
	row := make([]driver.Value, 0, 16)
	var key rollupKey // reused for every row: appendKey's pointer makes it escape
	withMeasures := hasMeasures(batches)
	for i := range rs {
		if len(sums[i]) == 0 {
			continue
		}
		measures := rs[i].Measures && withMeasures
		a, err := rollupAppender(c, &rs[i], measures)
		if err != nil {
			return nil, err
		}
		for k, s := range sums[i] {
			key = k
			row = appendKey(&rs[i], append(row[:0], k.time), &key)
			n := 5
			if measures {
				n = len(s.sums)
			}
			for _, v := range s.sums[:n] {
				row = append(row, v)
			}
			if measures {
				for _, h := range s.hists {
					row = append(row, records.EncodeHist([]uint64{}, h))
				}
			}
			if err = a.AppendRow(row...); err != nil {
				return nil, errors.Join(err, a.Close())
			}
		}
		if err := a.Close(); err != nil {
			return nil, err
		}
		rows[i] = len(sums[i])
	}
	return rows, nil
}

// retainRollups keeps the rollups of rs exact in tx, which deletes the records before t: the
// buckets before t's go, and t's own bucket, when t cuts it and it is before the rollup's mark,
// is summed anew from the records left in it (a bucket at or after the mark has no rows).
func retainRollups(ctx context.Context, tx *sql.Tx, rs []records.Rollup, marks rollupMarks, t int64) error {
	for i := range rs {
		r := &rs[i]
		b := records.FloorTo(t, r.Width)
		if _, err := tx.ExecContext(ctx, "DELETE FROM "+r.Table+" WHERE time < ?", b); err != nil {
			return err
		}
		if b == t || b >= marks.of(r) {
			continue
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM "+r.Table+" WHERE time = ?", b); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, insertSums(r, recordsOf(r), records.TimeRange(t, b+r.Width))); err != nil {
			return err
		}
	}
	return nil
}
