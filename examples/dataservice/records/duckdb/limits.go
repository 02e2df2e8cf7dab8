package duckdb

import (
	"context"
	"fmt"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// A Store runs in the service's process, which bounds it.
var _ records.Limiter = (*Store)(nil)

// SetLimits bounds what DuckDB takes for every query, ingest and deletion together: memory
// bytes (its memory_limit: past it large aggregations spill to records.duckdb.tmp or fail,
// rather than the process growing) and threads. Both must be positive.
func (s *Store) SetLimits(ctx context.Context, memory int64, threads int) error {
	if memory <= 0 || threads <= 0 {
		return fmt.Errorf("records: DuckDB limits must be positive (memory %d, threads %d)", memory, threads)
	}
	// SET takes no parameters; both values are integers.
	for _, q := range []string{
		fmt.Sprintf("SET GLOBAL memory_limit = '%dB'", memory),
		fmt.Sprintf("SET GLOBAL threads = %d", threads),
	} {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("records: %s: %w", q, err)
		}
	}
	return nil
}

// Limits returns DuckDB's memory_limit, as DuckDB writes it ("256.0 MiB"), and threads.
func (s *Store) Limits(ctx context.Context) (memory string, threads int, err error) {
	err = s.db.QueryRowContext(ctx, "SELECT current_setting('memory_limit'), current_setting('threads')").Scan(&memory, &threads)
	if err != nil {
		return "", 0, fmt.Errorf("records: reading DuckDB limits: %w", err)
	}
	return memory, threads, nil
}
