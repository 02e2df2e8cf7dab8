package clickhouse

import (
	"context"
	"fmt"
	"strconv"

	chdriver "github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// DeleteBefore drops, on every shard, the day partitions that lie wholly before t (Unix
// seconds) of the records and of their rollup, and returns how many records they held. Records
// of the day that holds t stay until that day has passed: retention on ClickHouse works in
// whole days, never row by row.
func (s *Store) DeleteBefore(ctx context.Context, t int64) (int64, error) {
	s.rollup.writing.RLock()
	defer s.rollup.writing.RUnlock()
	var total int64
	for _, c := range s.shards {
		n, err := dropBefore(ctx, c, "records", t)
		total += n
		for i := 0; err == nil && i < len(chRollups); i++ {
			_, err = dropBefore(ctx, c, chRollups[i].Table, t)
		}
		if err != nil {
			// The rollup may keep days the records lost.
			s.rollup.suspect(nil, true)
			return total, fmt.Errorf("records: delete before %d: %w", t, unavailable(err))
		}
	}
	if _, err := dropBefore(ctx, s.conn, batchesTable, t); err != nil {
		return total, fmt.Errorf("records: delete before %d: %w", t, unavailable(err))
	}
	return total, nil
}

// dropBefore drops the day partitions of table on c that lie wholly before t, and returns
// the rows they held.
func dropBefore(ctx context.Context, c chdriver.Conn, table string, t int64) (int64, error) {
	rows, err := c.Query(ctx, "SELECT partition, toUInt64(sum(rows)) FROM system.parts WHERE database = currentDatabase() AND table = ? AND active GROUP BY partition", table)
	if err != nil {
		return 0, err
	}
	type part struct {
		day  int64
		rows uint64
	}
	var drop []part
	for rows.Next() {
		var p string
		var n uint64
		if err := rows.Scan(&p, &n); err != nil {
			rows.Close()
			return 0, err
		}
		day, err := strconv.ParseInt(p, 10, 64)
		if err == nil && (day+1)*86400 <= t {
			drop = append(drop, part{day, n})
		}
	}
	rows.Close()
	var total int64
	for _, p := range drop {
		if err := c.Exec(ctx, "ALTER TABLE "+table+" DROP PARTITION "+strconv.FormatInt(p.day, 10)); err != nil {
			return total, err
		}
		total += int64(p.rows)
	}
	return total, nil
}
