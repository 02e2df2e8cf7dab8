package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/auth/authapi"
)

// CreateUser implements auth.Store.
func (s *Store) CreateUser(ctx context.Context, u auth.User) error {
	n, err := s.exec(ctx, `INSERT INTO auth_users (name, password, admin, role, created) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT DO NOTHING`, u.Name, u.PasswordHash, u.Role == authapi.RoleAdmin, string(u.Role), nanos(u.Created))
	if err != nil {
		return err
	}
	if n == 0 {
		return exists("user", u.Name)
	}
	return nil
}

// User implements auth.Store.
func (s *Store) User(ctx context.Context, name string) (auth.User, error) {
	u := auth.User{Name: name}
	var created int64
	var admin bool
	err := s.db.QueryRowContext(ctx, s.d.q(`SELECT password, admin, role, created FROM auth_users WHERE name = ?`), name).
		Scan(&u.PasswordHash, &admin, &u.Role, &created)
	if err != nil {
		return auth.User{}, wrap(err, fmt.Sprintf("user %q", name))
	}
	u.Created, u.Role = fromNanos(created), role(u.Role, admin)
	return u, nil
}

// Users implements auth.Store.
func (s *Store) Users(ctx context.Context) ([]auth.User, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT name, password, admin, role, created FROM auth_users ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: users: %w", err)
	}
	defer rows.Close()
	var us []auth.User
	for rows.Next() {
		var u auth.User
		var created int64
		var admin bool
		if err := rows.Scan(&u.Name, &u.PasswordHash, &admin, &u.Role, &created); err != nil {
			return nil, fmt.Errorf("sqlstore: users: %w", err)
		}
		u.Created, u.Role = fromNanos(created), role(u.Role, admin)
		us = append(us, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlstore: users: %w", err)
	}
	return us, nil
}

// SetPassword implements auth.Store.
func (s *Store) SetPassword(ctx context.Context, name, passwordHash string) error {
	n, err := s.exec(ctx, `UPDATE auth_users SET password = ? WHERE name = ?`, passwordHash, name)
	if err != nil {
		return err
	}
	if n == 0 {
		return notFound("user", name)
	}
	return nil
}

// SetRole implements auth.Store.
func (s *Store) SetRole(ctx context.Context, name string, r authapi.Role) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if r != authapi.RoleAdmin {
			if err := s.keepAdmin(ctx, tx, name); err != nil {
				return err
			}
		}
		res, err := tx.ExecContext(ctx, s.d.q(`UPDATE auth_users SET role = ?, admin = ? WHERE name = ?`),
			string(r), r == authapi.RoleAdmin, name)
		if err != nil {
			return fmt.Errorf("sqlstore: setting the role of %q: %w", name, err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return notFound("user", name)
		}
		return nil
	})
}

// keepAdmin returns ErrLastAdmin when name is the only administrator. It runs first in the
// transaction that would demote or delete name: on PostgreSQL it takes the store's advisory
// lock, so that two such transactions run one after the other and the second counts what the
// first left (SQLite's write transactions are serialised already).
func (s *Store) keepAdmin(ctx context.Context, tx *sql.Tx, name string) error {
	if s.d.lock != "" {
		if _, err := tx.ExecContext(ctx, s.d.lock); err != nil {
			return fmt.Errorf("sqlstore: locking the users: %w", err)
		}
	}
	var self, others int
	err := tx.QueryRowContext(ctx, s.d.q(`SELECT
			coalesce(sum(CASE WHEN name = ? THEN 1 ELSE 0 END), 0),
			coalesce(sum(CASE WHEN name = ? THEN 0 ELSE 1 END), 0)
		FROM auth_users WHERE role = ? OR (role = '' AND admin)`), name, name, string(authapi.RoleAdmin)).Scan(&self, &others)
	if err != nil {
		return fmt.Errorf("sqlstore: counting administrators: %w", err)
	}
	if self > 0 && others == 0 {
		return fmt.Errorf("sqlstore: user %q: %w", name, auth.ErrLastAdmin)
	}
	return nil
}

// role is a stored user's role: a user an older program created has only the admin flag.
func role(r authapi.Role, admin bool) authapi.Role {
	switch {
	case r != "":
		return r
	case admin:
		return authapi.RoleAdmin
	}
	return authapi.RoleUser
}

// DeleteUser implements auth.Store.
func (s *Store) DeleteUser(ctx context.Context, name string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.keepAdmin(ctx, tx, name); err != nil {
			return err
		}
		for _, q := range []string{
			`DELETE FROM auth_sessions WHERE user_name = ?`,
			`DELETE FROM auth_keys WHERE user_name = ?`,
		} {
			if _, err := tx.ExecContext(ctx, s.d.q(q), name); err != nil {
				return fmt.Errorf("sqlstore: deleting user %q: %w", name, err)
			}
		}
		res, err := tx.ExecContext(ctx, s.d.q(`DELETE FROM auth_users WHERE name = ?`), name)
		if err != nil {
			return fmt.Errorf("sqlstore: deleting user %q: %w", name, err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return notFound("user", name)
		}
		return nil
	})
}
