package duckdb

import (
	"context"
	"database/sql"
)

// DB gives the tests the database behind s, to read the table directly.
func (s *Store) DB() *sql.DB { return s.db }

// RollupTables names s's rollups, in order.
func (s *Store) RollupTables() []string {
	var out []string
	for _, r := range s.rollups {
		out = append(out, r.Table)
	}
	return out
}

// SumRollup sums every record into the rows of rollup i as the schema steps do (sumRecords),
// into a temporary table it drops after; it returns how many rows they make.
func (s *Store) SumRollup(ctx context.Context, i int) (int, error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	var n int
	if _, err := conn.ExecContext(ctx, "CREATE TEMP TABLE rollup_bench AS "+sumRecords(&s.rollups[i], recordsOf(&s.rollups[i]), "true")); err != nil {
		return 0, err
	}
	defer conn.ExecContext(ctx, "DROP TABLE rollup_bench")
	return n, conn.QueryRowContext(ctx, "SELECT count(*) FROM rollup_bench").Scan(&n)
}
