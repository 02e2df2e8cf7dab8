package state

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strings"
	"time"

	"github.com/fnapi/fnapi/auth/sqlstore"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// ConfigChannel is the PostgreSQL notification channel on which a Postgres store announces, at
// the commit, that the configuration values changed, so that other processes re-read them.
const ConfigChannel = "fnapi_config"

// Postgres is the Store in a PostgreSQL database, shared by the nodes of one service. It runs
// the same SQL as SQLite (the queries keep to what both accept, written with ? placeholders
// that its connections rewrite to PostgreSQL's $1, $2...) over a pool of connections; writes
// take one transaction-scoped advisory lock, so that they are serialised across every node as
// SQLite's single writer serialises them in one process, and reads see one snapshot. It is safe
// for concurrent use. Close it when done.
type Postgres struct {
	*SQLite
}

// writeLock is the advisory lock every write transaction takes first: an arbitrary key, this
// package's alone.
const writeLock = "SELECT pg_advisory_xact_lock(5794367128201563139)"

// OpenPostgres connects to the database at url (postgres://user[:password]@host:port/db?...),
// migrates its schema to the current version and returns the store. Several processes may
// open one database at once: their migrations run one after the other.
func OpenPostgres(ctx context.Context, url string, opts ...Option) (*Postgres, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 5 * time.Second // no call waits longer on a server that does not answer
	}
	db := sql.OpenDB(rebindConnector{stdlib.GetConnector(*cfg)})
	db.SetMaxOpenConns(8)
	s := &SQLite{rw: db, ro: db, now: time.Now, writeLock: writeLock, readLevel: sql.LevelRepeatableRead}
	for _, o := range opts {
		o(s)
	}
	s.limits = s.limits.withDefaults()
	p := &Postgres{s}
	if err := p.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("state: open PostgreSQL database: %w", err)
	}
	return p, nil
}

// Ping checks that the database answers.
func (p *Postgres) Ping(ctx context.Context) error { return p.rw.PingContext(ctx) }

// Close closes the connections. Calls in progress finish first.
func (p *Postgres) Close() error { return p.rw.Close() }

// pgMigration returns SQLite's migration i (see migrations) as PostgreSQL runs it: the same
// statements with times in BIGINT (PostgreSQL's INTEGER has 32 bits; SQLite's has 64), then
// what pgExtra adds. Both databases so count the same versions, and a migration written for
// SQLite in the SQL both share needs nothing more here.
func pgMigration(i int) string {
	return strings.ReplaceAll(migrations[i], "INTEGER", "BIGINT") + pgExtra[i]
}

// pgExtra holds, by migration, the statements of PostgreSQL alone: triggers that notify the
// other nodes.
var pgExtra = map[int]string{
	0: `
	CREATE FUNCTION state_config_notify() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN
		PERFORM pg_notify('` + ConfigChannel + `', '');
		RETURN NULL;
	END $$;
	CREATE TRIGGER config_changed AFTER INSERT OR UPDATE OR DELETE ON config
		FOR EACH STATEMENT EXECUTE FUNCTION state_config_notify();`,
}

// migrate brings the schema to the current version in one transaction, under the write lock,
// so that nodes starting together migrate one after the other; it refuses a schema newer than
// this program's.
func (p *Postgres) migrate(ctx context.Context) error {
	return p.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS state_schema (version INTEGER NOT NULL)`); err != nil {
			return fmt.Errorf("create schema table: %w", err)
		}
		var v int
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM state_schema`).Scan(&v); err != nil {
			return fmt.Errorf("read schema version: %w", err)
		}
		if v > len(migrations) {
			return newerSchema(v, len(migrations))
		}
		for i := v; i < len(migrations); i++ {
			if _, err := tx.ExecContext(ctx, pgMigration(i)); err != nil {
				return fmt.Errorf("migrate to schema version %d: %w", i+1, err)
			}
		}
		if v == len(migrations) {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM state_schema`); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO state_schema (version) VALUES (?)`, len(migrations))
		return err
	})
}

// rebindConnector makes connections that take queries written with ? placeholders.
type rebindConnector struct{ driver.Connector }

func (c rebindConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return rebindConn{conn.(*stdlib.Conn)}, nil
}

// rebindConn is a pgx connection whose queries' ? placeholders become $1, $2... (this
// package's queries hold no ? in literals). Every other method, and so every optional
// interface of database/sql/driver, is pgx's.
type rebindConn struct{ *stdlib.Conn }

func (c rebindConn) Prepare(query string) (driver.Stmt, error) {
	return c.Conn.Prepare(sqlstore.Rebind(query))
}

func (c rebindConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.PrepareContext(ctx, sqlstore.Rebind(query))
}

func (c rebindConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.ExecContext(ctx, sqlstore.Rebind(query), args)
}

func (c rebindConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.Conn.QueryContext(ctx, sqlstore.Rebind(query), args)
}
