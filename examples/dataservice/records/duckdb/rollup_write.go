package duckdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
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

// rollupKey is a rollup row's bucket and keys while a batch is summed, in slots that
// keySlots gives each column a rollup may keep (an address two numbers, its halves). A column
// not among a rollup's keys holds its zero value. The key columns are read from the records'
// columns (records.Column.Of), so a rollup keyed by another column needs nothing here but room.
type rollupKey struct {
	time int64
	nums [keyNums]uint64
	strs [keyStrs]string
}

// keyNums and keyStrs are how many number and string slots a rollupKey has: room for every key
// of the rollups (keySlotsOf panics when a rollup has more).
const keyNums, keyStrs = 9, 8

// keySlots gives each column that a rollup of DuckDB keeps its slot in a rollupKey: the index
// of its (first) number or of its string (records.NumColumns entries; the others zero).
var keySlots = keySlotsOf(storeRollups)

// keySlotsOf gives each key column of rs, in column order, the next slot of its kind.
func keySlotsOf(rs []records.Rollup) []int {
	keys := map[records.Column]bool{}
	for _, r := range rs {
		for _, c := range r.Keys {
			keys[c] = true
		}
	}
	slots := make([]int, records.NumColumns)
	nums, strs := 0, 0
	for c := range records.NumColumns {
		if !keys[c] {
			continue
		}
		switch c.Kind() {
		case records.KindString:
			slots[c], strs = strs, strs+1
		case records.KindAddr:
			slots[c], nums = nums, nums+2
		default:
			slots[c], nums = nums, nums+1
		}
	}
	if nums > keyNums || strs > keyStrs {
		panic("duckdb: the rollups' keys need more slots than rollupKey has: raise keyNums or keyStrs")
	}
	return slots
}

// recordKey sets dst to r's key in the rollup: its bucket, and the rollup's keys only.
func recordKey(ru *records.Rollup, dst *rollupKey, r *records.Record) {
	*dst = rollupKey{time: records.FloorTo(r.Time, ru.Width)}
	for _, c := range ru.Keys {
		v, at := c.Of(r), keySlots[c]
		switch c.Kind() {
		case records.KindString:
			dst.strs[at] = v.Str
		case records.KindAddr:
			dst.nums[at], dst.nums[at+1] = v.Hi, v.Lo
		default:
			dst.nums[at] = v.Lo
		}
	}
}

// keepKey sets dst to k in the rollup: its bucket, and the rollup's keys only.
func keepKey(ru *records.Rollup, dst, k *rollupKey) {
	*dst = rollupKey{time: records.FloorTo(k.time, ru.Width)}
	for _, c := range ru.Keys {
		at := keySlots[c]
		switch c.Kind() {
		case records.KindString:
			dst.strs[at] = k.strs[at]
		case records.KindAddr:
			dst.nums[at], dst.nums[at+1] = k.nums[at], k.nums[at+1]
		default:
			dst.nums[at] = k.nums[at]
		}
	}
}

// appendKey appends k's values of the rollup's key columns, in table order, to row, each of
// its kind's type (records.Kind.Box; an address as its two halves).
func appendKey(ru *records.Rollup, row []driver.Value, k *rollupKey) []driver.Value {
	for _, c := range ru.Keys {
		at := keySlots[c]
		switch kd := c.Kind(); kd {
		case records.KindString:
			row = append(row, k.strs[at])
		case records.KindAddr:
			row = append(row, k.nums[at], k.nums[at+1])
		default:
			row = append(row, kd.Box(k.nums[at]))
		}
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
// rs[i]'s, that keeps every key of rs[i] and sums its layer), or -1 when rs[i] is summed from the records.
func rollupSource(rs []records.Rollup, i int) int {
	for j := range i {
		if rs[i].Layer == rs[j].Layer && rs[i].Width%rs[j].Width == 0 && !slices.ContainsFunc(rs[i].Keys, func(c records.Column) bool { return !rs[j].Holds(c) }) {
			return j
		}
	}
	return -1
}

// sumBatches sums the records of batches before marks[i] of rs[i]'s layer into the rows of each
// rollup rs[i] (a rollup holds no record of another layer):
// from the records, or from the rows of an earlier, finer rollup that keeps every key
// (rollupSource) and no fewer records, which are fewer.
func sumBatches(rs []records.Rollup, marks []int64, batches [][]records.Record) []map[rollupKey]*rollupRow {
	out := make([]map[rollupKey]*rollupRow, len(rs))
	var k, rk rollupKey // reused for every record: the keys' pointers make them escape
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
				if r.Time >= marks[i] || r.Layer != rs[i].Layer {
					continue
				}
				recordKey(&rs[i], &rk, r)
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
					if rs[i].HistBytes {
						row = append(row, records.AppendHistBytes([]byte{}, h))
					} else {
						row = append(row, records.EncodeHist([]uint64{}, h))
					}
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
		if _, err := tx.ExecContext(ctx, insertSums(r, recordsOf(r), ofLayer(r, records.TimeRange(t, b+r.Width)))); err != nil {
			return err
		}
	}
	return nil
}
