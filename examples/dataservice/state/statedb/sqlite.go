package statedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/google/uuid"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// FileName is the name of the SQLite database file in the data directory.
const FileName = "state.db"

// SQLite is the embedded Store: one SQLite database file. It is safe for concurrent use.
type SQLite struct {
	rw     *sql.DB // one connection; every transaction begins IMMEDIATE
	ro     *sql.DB // read-only connections
	limits state.Limits
	now    func() time.Time

	maxPages  int64              // PRAGMA max_page_count of the writer; 0 for SQLite's default
	writeLock string             // run first in every write transaction (PostgreSQL)
	readLevel sql.IsolationLevel // of read transactions
}

var _ state.Store = (*SQLite)(nil)

// Option configures OpenSQLite.
type Option func(*SQLite)

// WithLimits sets how much the store holds. Default: the defaults of Limits' fields.
func WithLimits(l state.Limits) Option {
	return func(s *SQLite) { s.limits = l }
}

// WithMaxSize bounds the SQLite database file to about n bytes: past it, writes fail with
// ErrUnavailable, as on a full disk. Default: no bound but the disk's. PostgreSQL ignores it.
func WithMaxSize(n int64) Option {
	return func(s *SQLite) { s.maxPages = max(n/pageSize, 1) }
}

// pageSize is SQLite's default page size, which this package keeps.
const pageSize = 4096

// WithClock sets the clock that stamps Created and Updated. Default: time.Now.
func WithClock(now func() time.Time) Option {
	return func(s *SQLite) { s.now = now }
}

// OpenSQLite opens (creating it and dir when missing) the database dir/state.db, migrates
// its schema to the current version and returns the store. Close it when done.
func OpenSQLite(ctx context.Context, dir string, opts ...Option) (*SQLite, error) {
	s := &SQLite{now: time.Now}
	for _, o := range opts {
		o(s)
	}
	s.limits = s.limits.WithDefaults()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("state: create data directory: %w", err)
	}
	path, err := filepath.Abs(filepath.Join(dir, FileName))
	if err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	common := url.Values{}
	common.Add("_pragma", "busy_timeout(10000)")
	common.Add("_pragma", "foreign_keys(1)")
	common.Add("_pragma", "synchronous(FULL)")

	w := cloneValues(common)
	w.Add("_pragma", "journal_mode(WAL)")
	w.Set("_txlock", "immediate")
	if s.maxPages > 0 {
		w.Add("_pragma", fmt.Sprintf("max_page_count(%d)", s.maxPages))
	}
	if s.rw, err = sql.Open("sqlite", dsn(path, w)); err != nil {
		return nil, fmt.Errorf("state: open %s: %w", path, err)
	}
	s.rw.SetMaxOpenConns(1)
	s.rw.SetConnMaxIdleTime(0)
	if err := s.migrate(ctx); err != nil {
		s.rw.Close()
		return nil, fmt.Errorf("state: open %s: %w", path, err)
	}

	r := cloneValues(common)
	r.Add("_pragma", "query_only(1)")
	if s.ro, err = sql.Open("sqlite", dsn(path, r)); err != nil {
		s.rw.Close()
		return nil, fmt.Errorf("state: open %s: %w", path, err)
	}
	s.ro.SetMaxOpenConns(4)
	return s, nil
}

func cloneValues(v url.Values) url.Values {
	c := url.Values{}
	for k, vs := range v {
		c[k] = append([]string(nil), vs...)
	}
	return c
}

func dsn(path string, q url.Values) string {
	return "file:" + (&url.URL{Path: filepath.ToSlash(path)}).EscapedPath() + "?" + q.Encode()
}

// Close closes the database. Calls in progress finish first.
func (s *SQLite) Close() error {
	return errors.Join(s.ro.Close(), s.rw.Close())
}

// migrations are the schema's steps; PRAGMA user_version counts those applied. Append only.
var migrations = []string{
	`CREATE TABLE dashboards (
		id          TEXT PRIMARY KEY,
		title       TEXT NOT NULL,
		description TEXT NOT NULL,
		created     INTEGER NOT NULL, -- Unix milliseconds
		updated     INTEGER NOT NULL
	);
	CREATE INDEX dashboards_created ON dashboards (created, id);
	CREATE TABLE widgets (
		id        TEXT PRIMARY KEY,
		dashboard TEXT NOT NULL REFERENCES dashboards (id) ON DELETE CASCADE,
		title     TEXT NOT NULL,
		kind      TEXT NOT NULL,
		queries   TEXT NOT NULL, -- JSON array of strings
		options   TEXT NOT NULL, -- JSON object
		created   INTEGER NOT NULL,
		updated   INTEGER NOT NULL
	);
	CREATE INDEX widgets_dashboard ON widgets (dashboard, created, id);
	CREATE TABLE config (
		key   TEXT PRIMARY KEY CHECK (length(key) BETWEEN 1 AND 100),
		value TEXT NOT NULL
	);`,
	`CREATE TABLE audit (
		id      INTEGER PRIMARY KEY AUTOINCREMENT,
		time    INTEGER NOT NULL, -- Unix milliseconds
		user    TEXT NOT NULL,
		key     TEXT NOT NULL,    -- the API key's name; empty for a session
		address TEXT NOT NULL,
		action  TEXT NOT NULL,
		details TEXT NOT NULL     -- JSON object
	);
	CREATE INDEX audit_time ON audit (time);`,
	// "user" is a reserved word of PostgreSQL: the column of who acted is actor in both.
	`ALTER TABLE audit RENAME COLUMN "user" TO actor;`,
	// The audit quota counts one actor's events.
	`CREATE INDEX audit_actor ON audit (actor, id);`,
	// Quotas per user: who owns a dashboard or widget, and the bytes of text it holds
	// (counted in characters for what was stored before).
	`ALTER TABLE dashboards ADD COLUMN owner TEXT NOT NULL DEFAULT '';
	ALTER TABLE dashboards ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE widgets ADD COLUMN owner TEXT NOT NULL DEFAULT '';
	ALTER TABLE widgets ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
	UPDATE dashboards SET bytes = length(title) + length(description);
	UPDATE widgets SET bytes = length(title) + length(kind) + length(queries) + length(options);
	CREATE INDEX dashboards_owner ON dashboards (owner, bytes);
	CREATE INDEX widgets_owner ON widgets (owner, bytes);`,
	migrationContext,
}

// migrate brings the schema to the current version in one transaction.
func (s *SQLite) migrate(ctx context.Context) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		var v int
		if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
			return fmt.Errorf("read schema version: %w", err)
		}
		if v > len(migrations) {
			return newerSchema(v, len(migrations))
		}
		for i := v; i < len(migrations); i++ {
			if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
				return fmt.Errorf("migrate to schema version %d: %w", i+1, err)
			}
		}
		if v == len(migrations) {
			return nil
		}
		// PRAGMA takes no parameters; the value is a constant of this program.
		_, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", len(migrations)))
		return err
	})
}

// newerSchema is the error of a database whose schema a later program made.
func newerSchema(v, known int) error {
	return fmt.Errorf("schema version %d is newer than this program's %d: run the newer program", v, known)
}

// write runs fn in one write transaction, committed when fn returns nil and rolled back
// otherwise. fn's error is returned as is.
func (s *SQLite) write(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.rw.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("state: begin: %w", err)
	}
	if s.writeLock != "" {
		if _, err := tx.ExecContext(ctx, s.writeLock); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("state: lock: %w", err)
		}
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("state: commit: %w", err)
	}
	return nil
}

// read runs fn in one read-only transaction, so that it sees one snapshot.
func (s *SQLite) read(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.ro.BeginTx(ctx, &sql.TxOptions{ReadOnly: true, Isolation: s.readLevel})
	if err != nil {
		return fmt.Errorf("state: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only: nothing to keep
	return fn(tx)
}

// stamp returns the current time as stored: UTC, to the millisecond.
func (s *SQLite) stamp() (time.Time, int64) {
	t := s.now().UTC().Truncate(time.Millisecond)
	return t, t.UnixMilli()
}

// newID returns the id of a new dashboard or widget: a UUID of version 7, which begins with the
// time and, within one process, grows with each call. Lists are ordered by creation time and
// then id, so that things made in the same millisecond list in the order they were made (with
// random ids, of version 4, they listed in any order). The ids are no secret: the creation
// time is in every answer.
func newID() string { return uuid.Must(uuid.NewV7()).String() }

func fromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// queryer is what reads need of a *sql.Tx.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}
