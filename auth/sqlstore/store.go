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
	blob    string // the column type of binary values
	dollars bool   // placeholders are $1, $2... rather than ?
}

var sqlite = dialect{blob: "BLOB"}

// q rewrites a query written with ? placeholders for the dialect.
func (d dialect) q(query string) string {
	if !d.dollars {
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

// Close closes the database when Open opened it.
func (s *Store) Close() error {
	if !s.owned {
		return nil
	}
	return s.db.Close()
}

func (s *Store) init(ctx context.Context) error {
	stmts := []string{
		`CREATE TABLE IF NOT EXISTS auth_users (
			name TEXT PRIMARY KEY,
			password TEXT NOT NULL,
			admin BOOLEAN NOT NULL,
			created BIGINT NOT NULL,
			role TEXT NOT NULL DEFAULT '')`,
		`CREATE TABLE IF NOT EXISTS auth_sessions (
			hash ` + s.d.blob + ` PRIMARY KEY,
			user_name TEXT NOT NULL,
			created BIGINT NOT NULL,
			last_seen BIGINT NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS auth_sessions_user ON auth_sessions (user_name)`,
		`CREATE TABLE IF NOT EXISTS auth_keys (
			hash ` + s.d.blob + ` PRIMARY KEY,
			user_name TEXT NOT NULL,
			name TEXT NOT NULL,
			created BIGINT NOT NULL,
			last_used BIGINT,
			UNIQUE (user_name, name))`,
	}
	for _, q := range stmts {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("creating tables: %w", err)
		}
	}
	return s.migrateRoles(ctx)
}

// migrateRoles adds the role column to a store made before roles: an administrator (admin
// true) becomes RoleAdmin, everyone else RoleUser. The admin column stays, kept equal to
// role = administrator, so that an older program sharing the store still knows its
// administrators.
func (s *Store) migrateRoles(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `SELECT role FROM auth_users WHERE 1 = 0`)
	if err == nil {
		return rows.Close()
	}
	if _, err := s.db.ExecContext(ctx, `ALTER TABLE auth_users ADD COLUMN role TEXT NOT NULL DEFAULT ''`); err != nil {
		return fmt.Errorf("adding roles: %w", err)
	}
	_, err = s.db.ExecContext(ctx, s.d.q(`UPDATE auth_users SET role = CASE WHEN admin THEN ? ELSE ? END WHERE role = ''`),
		string(auth.RoleAdmin), string(auth.RoleUser))
	if err != nil {
		return fmt.Errorf("adding roles: %w", err)
	}
	return nil
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
