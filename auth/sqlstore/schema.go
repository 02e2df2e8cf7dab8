package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/fnapi/fnapi/auth/authapi"
)

// step is one version of the schema: SQL for every dialect, and SQL for PostgreSQL alone.
type step struct {
	all      func(d dialect) []string
	postgres []string
	// added, when set, is the table and column the step adds: a database that has it already
	// (made before versioning by a program that added it on its own) skips the step's first
	// statement, the ALTER TABLE.
	added [2]string
}

// steps are the schema's versions; auth_schema holds how many were applied. Append only: a
// released step never changes.
var steps = []step{
	{all: func(d dialect) []string {
		return []string{
			// IF NOT EXISTS: databases made before versioning already have these tables.
			`CREATE TABLE IF NOT EXISTS auth_users (
				name TEXT PRIMARY KEY,
				password TEXT NOT NULL,
				admin BOOLEAN NOT NULL,
				created BIGINT NOT NULL)`,
			`CREATE TABLE IF NOT EXISTS auth_sessions (
				hash ` + d.blob + ` PRIMARY KEY,
				user_name TEXT NOT NULL,
				created BIGINT NOT NULL,
				last_seen BIGINT NOT NULL)`,
			`CREATE INDEX IF NOT EXISTS auth_sessions_user ON auth_sessions (user_name)`,
			`CREATE TABLE IF NOT EXISTS auth_keys (
				hash ` + d.blob + ` PRIMARY KEY,
				user_name TEXT NOT NULL,
				name TEXT NOT NULL,
				created BIGINT NOT NULL,
				last_used BIGINT,
				UNIQUE (user_name, name))`,
		}
	}},
	{postgres: []string{
		// Tell the other processes at commit what their token caches must drop.
		`CREATE FUNCTION auth_notify() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF TG_TABLE_NAME = 'auth_users' THEN
				PERFORM pg_notify('` + Channel + `', 'user:' || OLD.name);
			ELSE
				PERFORM pg_notify('` + Channel + `', 'token:' || encode(OLD.hash, 'hex'));
			END IF;
			RETURN NULL;
		END $$`,
		`CREATE TRIGGER auth_users_changed AFTER UPDATE OR DELETE ON auth_users
			FOR EACH ROW EXECUTE FUNCTION auth_notify()`,
		`CREATE TRIGGER auth_sessions_deleted AFTER DELETE ON auth_sessions
			FOR EACH ROW EXECUTE FUNCTION auth_notify()`,
		`CREATE TRIGGER auth_keys_deleted AFTER DELETE ON auth_keys
			FOR EACH ROW EXECUTE FUNCTION auth_notify()`,
	}},
	// Roles: an administrator (admin true) becomes RoleAdmin, everyone else RoleUser. The admin
	// column stays, kept equal to role = administrator, so that an older program sharing the
	// store still knows its administrators.
	{added: [2]string{"auth_users", "role"}, all: func(d dialect) []string {
		return []string{
			`ALTER TABLE auth_users ADD COLUMN role TEXT NOT NULL DEFAULT ''`,
			`UPDATE auth_users SET role = CASE WHEN admin THEN '` + string(authapi.RoleAdmin) +
				`' ELSE '` + string(authapi.RoleUser) + `' END WHERE role = ''`,
		}
	}},
}

// Channel is the PostgreSQL notification channel on which a store tells other processes what
// their token caches must drop, at the commit that ended a session, revoked a key, or changed
// or deleted a user. A payload is "token:" and the hex SHA-256 hash of a session ID or key, or
// "user:" and a user name.
const Channel = "fnapi_auth"

// init migrates the tables to the latest version in one transaction, and refuses a database whose
// schema is newer (made by a later version of this package, which this one could damage).
func (s *Store) init(ctx context.Context) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if s.d.lock != "" {
			if _, err := tx.ExecContext(ctx, s.d.lock); err != nil {
				return fmt.Errorf("locking the schema: %w", err)
			}
		}
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS auth_schema (version INTEGER NOT NULL)`); err != nil {
			return fmt.Errorf("creating tables: %w", err)
		}
		var v int
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM auth_schema`).Scan(&v); err != nil {
			return fmt.Errorf("reading the schema version: %w", err)
		}
		if v > len(steps) {
			return fmt.Errorf("the %s database's auth schema is at version %d, newer than this program's %d: run the newer program", s.d.name, v, len(steps))
		}
		for i := v; i < len(steps); i++ {
			var stmts []string
			if steps[i].all != nil {
				stmts = steps[i].all(s.d)
			}
			if t := steps[i].added; t[0] != "" {
				var n int
				if err := tx.QueryRowContext(ctx, s.d.q(s.d.columns), t[0], t[1]).Scan(&n); err != nil {
					return fmt.Errorf("migrating to schema version %d: %w", i+1, err)
				}
				if n > 0 {
					stmts = stmts[1:]
				}
			}
			if s.d == postgres {
				stmts = append(stmts, steps[i].postgres...)
			}
			for _, q := range stmts {
				if _, err := tx.ExecContext(ctx, q); err != nil {
					return fmt.Errorf("migrating to schema version %d: %w", i+1, err)
				}
			}
		}
		if v == len(steps) {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM auth_schema`); err != nil {
			return fmt.Errorf("recording the schema version: %w", err)
		}
		_, err := tx.ExecContext(ctx, s.d.q(`INSERT INTO auth_schema (version) VALUES (?)`), len(steps))
		if err != nil {
			return fmt.Errorf("recording the schema version: %w", err)
		}
		return nil
	})
}
