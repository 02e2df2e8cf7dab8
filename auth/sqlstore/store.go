package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/fnapi/fnapi/auth"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// Store is an [auth.Store] in a SQL database. It is safe for concurrent use.
type Store struct {
	db    *sql.DB
	d     dialect
	owned bool // Close closes db
}

var _ auth.Store = (*Store)(nil)

// dialect holds what differs between SQL databases.
type dialect struct {
	name    string // for messages
	blob    string // the column type of binary values
	dollars bool   // placeholders are $1, $2... rather than ?
	lock    string // run first in the migration's transaction and those that demote or delete a user, to keep other processes out
	columns string // counts the columns named ? of the table named ?
}

var (
	sqlite = dialect{name: "SQLite", blob: "BLOB",
		columns: "SELECT count(*) FROM pragma_table_info(?) WHERE name = ?"}
	// postgres takes a transaction-scoped advisory lock, so that nodes starting together
	// migrate one after the other (the key is arbitrary, fixed, and this package's alone).
	postgres = dialect{name: "PostgreSQL", blob: "BYTEA", dollars: true,
		lock:    "SELECT pg_advisory_xact_lock(7305641062312471121)",
		columns: "SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? AND column_name = ?"}
)

// q rewrites a query written with ? placeholders for the dialect.
func (d dialect) q(query string) string {
	if !d.dollars {
		return query
	}
	return Rebind(query)
}

// Rebind numbers the ? placeholders of query as PostgreSQL's $1, $2..., for SQL written once
// for SQLite and PostgreSQL. Every ? is a placeholder: the query must hold none in a literal.
func Rebind(query string) string {
	if !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Open opens (creating it if needed) the SQLite database file at path and its tables. The file
// holds no secret in clear; give it mode 0600 all the same, as Open does when it creates it.
func Open(ctx context.Context, path string) (*Store, error) {
	if f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
		f.Close() // SQLite gives its journal files the same mode
	} else if !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("sqlstore: %w", err)
	}
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() +
		"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: opening %s: %w", path, err)
	}
	s := &Store{db: db, d: sqlite, owned: true}
	if err := s.init(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlstore: opening %s: %w", path, err)
	}
	return s, nil
}

// New returns a Store over db, a SQLite database the caller opened, creating the tables if
// needed. Close leaves db open.
func New(ctx context.Context, db *sql.DB) (*Store, error) {
	s := &Store{db: db, d: sqlite}
	if err := s.init(ctx); err != nil {
		return nil, fmt.Errorf("sqlstore: %w", err)
	}
	return s, nil
}

// NewPostgres returns a Store over db, a PostgreSQL database the caller opened with any
// database/sql driver (the example data service uses pgx's stdlib), migrating its tables to
// this version's schema. Several processes may share the database: see the package
// documentation for what they agree on. Close leaves db open.
func NewPostgres(ctx context.Context, db *sql.DB) (*Store, error) {
	s := &Store{db: db, d: postgres}
	if err := s.init(ctx); err != nil {
		return nil, fmt.Errorf("sqlstore: %w", err)
	}
	return s, nil
}

// Close closes the database when Open opened it.
func (s *Store) Close() error {
	if !s.owned {
		return nil
	}
	return s.db.Close()
}

// tx runs fn in a transaction, committed when fn returns nil.
func (s *Store) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlstore: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlstore: commit: %w", err)
	}
	return nil
}

func (s *Store) exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := s.db.ExecContext(ctx, s.d.q(query), args...)
	if err != nil {
		return 0, fmt.Errorf("sqlstore: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("sqlstore: %w", err)
	}
	return n, nil
}

func nanos(t time.Time) int64 { return t.UnixNano() }

func fromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }

func notFound(what, name string) error {
	return fmt.Errorf("sqlstore: %s %q: %w", what, name, auth.ErrNotFound)
}

func exists(what, name string) error {
	return fmt.Errorf("sqlstore: %s %q: %w", what, name, auth.ErrExists)
}

// wrap returns ErrNotFound for no rows, the error wrapped otherwise.
func wrap(err error, what string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("sqlstore: %s: %w", what, auth.ErrNotFound)
	}
	return fmt.Errorf("sqlstore: %s: %w", what, err)
}
