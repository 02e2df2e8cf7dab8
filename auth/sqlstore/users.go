package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/fnapi/fnapi/auth"
)

// CreateUser implements auth.Store.
func (s *Store) CreateUser(ctx context.Context, u auth.User) error {
	n, err := s.exec(ctx, `INSERT INTO auth_users (name, password, admin, created) VALUES (?, ?, ?, ?)
		ON CONFLICT DO NOTHING`, u.Name, u.PasswordHash, u.Admin, nanos(u.Created))
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
	err := s.db.QueryRowContext(ctx, s.d.q(`SELECT password, admin, created FROM auth_users WHERE name = ?`), name).
		Scan(&u.PasswordHash, &u.Admin, &created)
	if err != nil {
		return auth.User{}, wrap(err, fmt.Sprintf("user %q", name))
	}
	u.Created = fromNanos(created)
	return u, nil
}

// Users implements auth.Store.
func (s *Store) Users(ctx context.Context) ([]auth.User, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT name, password, admin, created FROM auth_users ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: users: %w", err)
	}
	defer rows.Close()
	var us []auth.User
	for rows.Next() {
		var u auth.User
		var created int64
		if err := rows.Scan(&u.Name, &u.PasswordHash, &u.Admin, &created); err != nil {
			return nil, fmt.Errorf("sqlstore: users: %w", err)
		}
		u.Created = fromNanos(created)
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

// DeleteUser implements auth.Store.
func (s *Store) DeleteUser(ctx context.Context, name string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
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
