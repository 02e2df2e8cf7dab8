package duckdb

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/fnapi/fnapi/examples/dataservice/records"

	"github.com/duckdb/duckdb-go/v2"
)

// FileName is the name of the DuckDB database file in the data directory.
const FileName = "records.duckdb"

// checkpointThreshold is the size of the write-ahead log at which a commit also checkpoints it
// into the database file. DuckDB's default, 16 MB (about 100,000 records), made checkpoints
// most of ingest's cost; fewer, larger ones cost ~1.5-2x less per record, counting the last
// one at Close. The price: up to this much log to replay when opening after a crash, and the
// records it holds kept in memory uncompressed until the checkpoint.
const checkpointThreshold = "128MB"

// Store is the embedded records.Store: a DuckDB database file whose write-ahead log makes every
// acknowledged Ingest survive a crash (even kill -9) of the process. Writes are serialised;
// reads run concurrently with them. It is safe for concurrent use.
type Store struct {
	db *sql.DB
	// write holds one token: the right to write, and to spans and newest.
	write chan struct{}
	// rollups are the rollups the database keeps (storeRollups); spans, in the same order,
	// what each gained since its last compaction.
	rollups []records.Rollup
	spans   []rollupSpan
	// marks are those of the background rollups (rollup_mark.go); newest is at least the time
	// of the newest record, raised with the write token held before the records it covers are
	// committed, so a read that finds its period's end past it may open that end (read).
	marks  rollupMarks
	newest atomic.Int64
	// contexts are the numbers of the contexts known stored (context.go), used with the write
	// token held.
	contexts knownContexts
	// names are the values of the contexts reads named (context_names.go).
	names contextNames
	// group holds the Ingest calls waiting to be committed together.
	group group
	// changes reports the times each write touches (changes.go).
	changes records.Changes
	// logError reports the background step's failures (WithErrorLog).
	logError func(msg string, err error)
	// stop ends the background step (closed once, by stopping), which closes stopped when it has.
	stop, stopped chan struct{}
	stopping      sync.Once
}

// init registers DuckDB as the engine of duckdb:<dir> URLs and of plain paths
// (records.DefaultScheme): dir holds records.duckdb.
func init() {
	records.Register("duckdb", records.Engine{Name: "duckdb",
		Open: func(ctx context.Context, url, _ string, opts ...records.Option) (records.Store, error) {
			return Open(ctx, records.PathOf(url), opts...)
		}})
}

var (
	_ records.Store          = (*Store)(nil)
	_ records.ChangeReporter = (*Store)(nil)
)

// Open opens (creating it and dir when missing) the DuckDB database dir/records.duckdb and
// brings its schema to this version (migrate.go): a file of an earlier version opens. Only one
// process may open the file at a time.
func Open(ctx context.Context, dir string, opts ...records.Option) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("records: open: %w", err)
	}
	path := filepath.Join(dir, FileName)
	connector, err := duckdb.NewConnector(path, nil)
	if err != nil {
		return nil, fmt.Errorf("records: open %s: %w", path, err)
	}
	db := sql.OpenDB(connector)
	if _, err := db.ExecContext(ctx, "SET GLOBAL checkpoint_threshold = '"+checkpointThreshold+"'"); err != nil {
		db.Close()
		return nil, fmt.Errorf("records: open %s: %w", path, err)
	}
	if err := migrate(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("records: open %s: %w", path, err)
	}
	marks, err := loadMarks(ctx, db, storeRollups)
	var newest int64
	if err == nil {
		newest, err = newestRecord(ctx, db, storeRollups)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("records: create the rollups: %w", err)
	}
	s := &Store{db: db, write: make(chan struct{}, 1), rollups: storeRollups, spans: make([]rollupSpan, len(storeRollups)),
		marks: marks, contexts: knownContexts{}, logError: records.OptionsOf(opts).LogError, stop: make(chan struct{}), stopped: make(chan struct{})}
	s.newest.Store(newest)
	s.write <- struct{}{}
	go s.background(rollupPeriod(), s.stop, s.stopped)
	return s, nil
}

// lock takes the write token, or fails when ctx ends first.
func (s *Store) lock(ctx context.Context) error {
	select {
	case <-s.write:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Store) unlock() { s.write <- struct{}{} }

// DeleteBefore deletes the records whose time is before t (Unix seconds).
func (s *Store) DeleteBefore(ctx context.Context, t int64) (int64, error) {
	if err := s.lock(ctx); err != nil {
		return 0, fmt.Errorf("records: delete: %w", err)
	}
	defer s.unlock()
	s.changes.TouchBefore(t)
	defer s.changes.TouchBefore(t)
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("records: delete before %d: %w", t, err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `DELETE FROM records WHERE time < ?`, t)
	if err == nil {
		_, err = tx.ExecContext(ctx, "DELETE FROM "+batchesTable+" WHERE time < ?", t)
	}
	if err != nil {
		return 0, fmt.Errorf("records: delete before %d: %w", t, err)
	}
	n, err := res.RowsAffected()
	if err == nil {
		err = retainRollups(ctx, tx, s.rollups, s.marks, t)
	}
	if err == nil && n > 0 {
		// The contexts no record holds any more go too; those known stored are forgotten.
		_, err = tx.ExecContext(ctx, "DELETE FROM "+contextsTable+" WHERE id NOT IN (SELECT context FROM records)")
	}
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		return 0, fmt.Errorf("records: delete before %d: %w", t, err)
	}
	if n > 0 {
		s.contexts = knownContexts{}
	}
	return n, nil
}

// Compile turns qs into DuckDB's SQL: one SELECT with GROUPING SETS for those of one Where
// and one chain of rollups, over the records and those rollups.
func (s *Store) Compile(qs ...*records.Query) *records.Plan {
	return records.Compile(duckDialect, "records", s.rollups, qs)
}

// Read runs p over the records with from <= time < to, calling fn with each group.
func (s *Store) Read(ctx context.Context, p *records.Plan, from, to int64, fn func(*records.Row) error) error {
	return p.ReadParts(ctx, from, to, s.read, fn)
}

// histSlice is the longest span of records a part of a plan reading histograms reads in one
// SELECT (an hour): DuckDB hands a group's histogram entries as one list (sql.go, duckHist), as
// long as the group's records, so a longer period is read an hour at a time, each hour's rows
// partial histograms the reader merges. The memory a percentile takes is then that of an hour
// of records, whatever its period. A part that reads rollups reads its period in one SELECT:
// their rows hold merged histograms, and the records only the cut edges of the period.
const histSlice = 3600

func (s *Store) read(ctx context.Context, p *records.Plan, from, to int64, fn func(*records.Row) error) error {
	// A period ending past every record is read to the end of its coarsest rollup's bucket.
	// A batch committed between this test and the SELECT may hold records at or after to,
	// stamped after the read began, which it then counts, as a read a moment later would.
	if to > s.newest.Load() {
		to = p.OpenEnd(to)
	}
	if p.NumHists() == 0 || len(p.Levels) > 0 || to-from <= histSlice {
		// One SELECT, also for an empty period: its total's row of zeros, as a plan over
		// the rollups gives it.
		return s.readSpan(ctx, p, from, to, fn)
	}
	for t := from; t < to; t += histSlice {
		if err := s.readSpan(ctx, p, t, min(t+histSlice, to), fn); err != nil {
			return err
		}
	}
	return nil
}

// readSpan runs one part of a plan over [from, to) in one SELECT.
func (s *Store) readSpan(ctx context.Context, p *records.Plan, from, to int64, fn func(*records.Row) error) error {
	marks := make([]int64, len(p.Levels))
	for i, r := range p.Levels {
		marks[i] = s.marks.of(r)
	}
	args, err := p.Bind(from, to, marks)
	if err != nil {
		return err
	}
	query, args := p.LiteralTimes(args)
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("records: read: %w", err)
	}
	defer rows.Close()
	vals := make([]any, p.Width())
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	return p.Scan(rows, ptrs, vals, s.names.names(ctx, s.db), fn)
}

// Newest returns the time of the newest record; ok is false when there is none.
func (s *Store) Newest(ctx context.Context) (int64, bool, error) {
	var t sql.NullInt64
	if err := s.db.QueryRowContext(ctx, "SELECT max(time) FROM records").Scan(&t); err != nil {
		return 0, false, fmt.Errorf("records: newest: %w", err)
	}
	return t.Int64, t.Valid, nil
}

// Close stops the background step (without catching up: the next open resumes it) and closes
// the database; a clean close checkpoints the write-ahead log into the file.
func (s *Store) Close() error {
	s.stopping.Do(func() { close(s.stop) })
	<-s.stopped
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("records: close: %w", err)
	}
	return nil
}
