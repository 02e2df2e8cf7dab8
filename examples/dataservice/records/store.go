package records

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrUnavailable marks an error of a store that could not be reached (refused, reset or timed
// out connection): the call may be retried once the store is back.
var ErrUnavailable = errors.New("store unavailable")

// Store keeps traffic records. Implementations are safe for concurrent use.
type Store interface {
	// Ingest stores a batch of valid records in one transaction: all of them or, when it
	// returns an error, none. A nil error means the records are durable.
	Ingest(ctx context.Context, recs []Record) error
	// DeleteBefore deletes the records whose time is before t (Unix seconds) and returns how
	// many it deleted.
	DeleteBefore(ctx context.Context, t int64) (int64, error)
	// Reader answers the query engine in the store's own SQL.
	Reader
	// Close releases the store; it must not be used afterwards.
	Close() error
}

// Limiter is a Store whose engine runs in the service's own process (DuckDB) and so takes its
// memory and threads: the service bounds them (SetLimits) before it answers queries. A store
// on a server of its own (ClickHouse) has the server's settings and is not a Limiter.
type Limiter interface {
	// SetLimits bounds the memory (bytes) and threads the engine takes for every query, ingest
	// and deletion together; both must be positive.
	SetLimits(ctx context.Context, memory int64, threads int) error
}

// Retain applies a retention period: it deletes from s the records older than keep at now, and
// returns how many it deleted. The service calls it periodically with the configured retention;
// a keep of zero or less keeps everything.
func Retain(ctx context.Context, s Store, keep time.Duration, now time.Time) (int64, error) {
	if keep <= 0 {
		return 0, nil
	}
	n, err := s.DeleteBefore(ctx, now.Add(-keep).Unix())
	if err != nil {
		return n, fmt.Errorf("records: retain %s: %w", keep, err)
	}
	return n, nil
}

// Batch is a batch of records with the id its publisher gave it (package queue), so that a
// batch delivered again is stored once.
type Batch struct {
	// ID names the batch; at most MaxBatchIDLen bytes.
	ID string
	// Again is true when the batch may have been given to a store before (a redelivery): a
	// store whose check costs a query (ClickHouse) checks only then.
	Again bool
	// Records are the batch's records.
	Records []Record
}

// MaxBatchIDLen is the longest batch id a BatchStore accepts, in bytes.
const MaxBatchIDLen = 64

// BatchStore is a Store that remembers the ids of the batches it stored: IngestBatch stores
// b.Records as Ingest does, unless a batch of the same id was stored before, and then returns
// nil without storing anything. Package duckdb keeps the id in the transaction of the rows;
// package clickhouse writes it after the rows' block (its doc says what that leaves open).
type BatchStore interface {
	Store
	IngestBatch(ctx context.Context, b Batch) error
}
