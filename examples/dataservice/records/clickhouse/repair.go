package clickhouse

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records"

	chdriver "github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// The materialized views write a block's rollup rows after the block's records, so a server
// killed (or an insert failing) between the two leaves a day whose records a rollup lacks; a
// rollup made for an existing records table (schema version 1) lacks them all. chRepair
// compares, day by day, shard by shard and rollup by rollup, the records count of the records
// table (the rows of its active parts) with the rollup's, and sums again from the records each
// day where they differ. It runs at open for every day, and for the days of a failed Ingest or retention
// before the next read or ingest; until the rollup is known to match the records again, reads
// take every minute from the records, so answers stay exact.

// chSettle is how long chRepair waits, when a day differs, before it looks again: the time
// for an insert that another node has in flight to reach the rollup too.
const chSettle = time.Second

// chRetryEvery is how often, at most, a failed repair is tried again by a read.
const chRetryEvery = 5 * time.Second

// chRollupState is what a ClickHouse store knows of its rollup's agreement with the records.
type chRollupState struct {
	// writing is held shared by each insert and retention, and whole by a repair, so that a
	// repair never sees this store's own writes half done.
	writing sync.RWMutex
	mu      sync.Mutex
	pending map[int64]bool // days that may differ
	all     bool           // every day may differ
	busy    bool           // a repair runs
	tried   time.Time      // the last failed repair
}

// suspect marks days, or every day, as possibly differing.
func (st *chRollupState) suspect(days []int64, all bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.all = st.all || all
	for _, d := range days {
		st.pending[d] = true
	}
}

// trusted reports whether the rollup matches the records, repairing it first when it may not
// (at most every chRetryEvery after a failure, unless force). While another call repairs it,
// it is not trusted.
func (s *Store) trusted(ctx context.Context, force bool) bool {
	st := &s.rollup
	st.mu.Lock()
	if !st.all && len(st.pending) == 0 {
		st.mu.Unlock()
		return true
	}
	if st.busy || !force && time.Since(st.tried) < chRetryEvery {
		st.mu.Unlock()
		return false
	}
	st.busy = true
	all, days := st.all, slices.Collect(maps.Keys(st.pending))
	st.mu.Unlock()
	// No write of this store runs meanwhile, so none marks other days.
	st.writing.Lock()
	err := s.repair(ctx, days, all)
	st.writing.Unlock()
	st.mu.Lock()
	defer st.mu.Unlock()
	st.busy = false
	if err != nil {
		st.tried = time.Now()
		if ctx.Err() == nil {
			s.logError(fmt.Sprintf("records: repairing the ClickHouse rollup failed; reads use the records alone until a repair succeeds (retried at most every %v)", chRetryEvery), err)
		}
		return false
	}
	st.all, st.pending = false, map[int64]bool{}
	return true
}

// repair makes the rollup of the days given (every day when all) match the records, on each
// shard.
func (s *Store) repair(ctx context.Context, days []int64, all bool) error {
	for i, c := range s.shards {
		if err := chRepair(ctx, c, days, all); err != nil {
			return fmt.Errorf("records: clickhouse: the rollup of shard %d: %w", i+1, unavailable(err))
		}
	}
	return nil
}

// chRepair makes each rollup on c match the records for the days given (every day when all):
// the days whose counts differ twice, chSettle apart, are summed again, then checked once more.
func chRepair(ctx context.Context, c chdriver.Conn, days []int64, all bool) error {
	// differing returns, for each rollup, the days (of those asked) where it and the records
	// differ, and whether there is found.
	differing := func() ([][]int64, bool, error) {
		recs, err := chDayCounts(ctx, c, "SELECT partition, toUInt64(sum(rows)) FROM system.parts WHERE database = currentDatabase() AND table = 'records' AND active GROUP BY partition")
		if err != nil {
			return nil, false, err
		}
		// Each rollup holds the records of its layer alone: those of the layers are counted
		// apart (a read of the layer column, one byte a record), and the transport's are the
		// rest.
		byLayer := map[records.Layer]map[int64]uint64{0: recs}
		rows, err := c.Query(ctx, "SELECT toString(intDiv(time, 86400)) AS d, toUInt8(layer), toUInt64(count()) FROM records WHERE "+chLayered+" GROUP BY d, layer")
		if err != nil {
			return nil, false, err
		}
		for rows.Next() {
			var p string
			var l uint8
			var n uint64
			if err := rows.Scan(&p, &l, &n); err != nil {
				rows.Close()
				return nil, false, err
			}
			d, err := strconv.ParseInt(p, 10, 64)
			if err != nil {
				continue
			}
			if byLayer[records.Layer(l)] == nil {
				byLayer[records.Layer(l)] = map[int64]uint64{}
			}
			byLayer[records.Layer(l)][d] = n
			recs[d] -= min(n, recs[d])
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, false, err
		}
		out, found := make([][]int64, len(chRollups)), false
		for i := range chRollups {
			sums, err := chDayCounts(ctx, c, "SELECT toString(intDiv(time, 86400)) AS d, toUInt64(sum(records)) FROM "+chRollups[i].Table+" GROUP BY d")
			if err != nil {
				return nil, false, err
			}
			recs := byLayer[chRollups[i].Layer]
			for d := range recs {
				if _, ok := sums[d]; !ok {
					sums[d] = 0 // a day the rollup lacks
				}
			}
			for d, n := range sums {
				if recs[d] != n && (all || slices.Contains(days, d)) {
					out[i], found = append(out[i], d), true
				}
			}
			slices.Sort(out[i])
		}
		return out, found, nil
	}
	if _, found, err := differing(); err != nil || !found {
		return err
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(chSettle):
	}
	bad, found, err := differing()
	if err != nil || !found {
		return err
	}
	days, all = nil, false // differing now looks at the days summed again only
	for i, ds := range bad {
		r := &chRollups[i]
		for _, d := range ds {
			if err := c.Exec(ctx, "ALTER TABLE "+r.Table+" DROP PARTITION "+dayString(d)); err != nil {
				return err
			}
			where := "time >= " + strconv.FormatInt(d*86400, 10) + " AND time < " + strconv.FormatInt((d+1)*86400, 10)
			if err := c.Exec(ctx, "INSERT INTO "+r.Table+" ("+chRollupStored(r)+") "+chRollupSelect(r, where+" AND "+chLayerCond(r))); err != nil {
				return err
			}
			days = append(days, d)
		}
	}
	if bad, found, err = differing(); err != nil || !found {
		return err
	}
	for i, ds := range bad {
		if len(ds) > 0 {
			return fmt.Errorf("day %d of %s still differs from the records after it was summed again (is another node writing it?)", ds[0], chRollups[i].Table)
		}
	}
	return nil
}

// chLayered is the condition of the records of a layer (not the transport's).
const chLayered = "layer NOT IN (0)"

// chDayCounts runs query, whose rows are a day partition's ID and a count.
func chDayCounts(ctx context.Context, c chdriver.Conn, query string) (map[int64]uint64, error) {
	rows, err := c.Query(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]uint64{}
	for rows.Next() {
		var p string
		var n uint64
		if err := rows.Scan(&p, &n); err != nil {
			return nil, err
		}
		if d, err := strconv.ParseInt(p, 10, 64); err == nil {
			out[d] = n
		}
	}
	return out, rows.Err()
}

// recordDays returns the days recs fall in.
func recordDays(recs []records.Record) []int64 {
	seen := map[int64]bool{}
	for i := range recs {
		seen[records.FloorTo(recs[i].Time, 86400)/86400] = true
	}
	return slices.Collect(maps.Keys(seen))
}
