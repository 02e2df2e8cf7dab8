package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/fnapi/fnapi/auth"
)

// CreateSession implements auth.Store.
func (s *Store) CreateSession(ctx context.Context, ss auth.Session) error {
	n, err := s.exec(ctx, `INSERT INTO auth_sessions (hash, user_name, created, last_seen)
		SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM auth_users WHERE name = ?)`,
		ss.Hash[:], ss.User, nanos(ss.Created), nanos(ss.LastSeen), ss.User)
	if err != nil {
		return err
	}
	if n == 0 {
		return notFound("user", ss.User)
	}
	return nil
}

// Session implements auth.Store.
func (s *Store) Session(ctx context.Context, h auth.Hash) (auth.Session, error) {
	ss := auth.Session{Hash: h}
	var created, seen int64
	err := s.db.QueryRowContext(ctx, s.d.q(`SELECT user_name, created, last_seen FROM auth_sessions WHERE hash = ?`), h[:]).
		Scan(&ss.User, &created, &seen)
	if err != nil {
		return auth.Session{}, wrap(err, "session")
	}
	ss.Created, ss.LastSeen = fromNanos(created), fromNanos(seen)
	return ss, nil
}

// DeleteSession implements auth.Store.
func (s *Store) DeleteSession(ctx context.Context, h auth.Hash) error {
	_, err := s.exec(ctx, `DELETE FROM auth_sessions WHERE hash = ?`, h[:])
	return err
}

// DeleteSessions implements auth.Store.
func (s *Store) DeleteSessions(ctx context.Context, user string, keep auth.Hash) error {
	_, err := s.exec(ctx, `DELETE FROM auth_sessions WHERE user_name = ? AND hash <> ?`, user, keep[:])
	return err
}

// PurgeSessions implements auth.Store.
func (s *Store) PurgeSessions(ctx context.Context, idleBefore, createdBefore time.Time) error {
	_, err := s.exec(ctx, `DELETE FROM auth_sessions WHERE last_seen < ? OR created < ?`, nanos(idleBefore), nanos(createdBefore))
	return err
}

// TouchSessions implements auth.Store.
func (s *Store) TouchSessions(ctx context.Context, ts []auth.Touch) error {
	return s.touch(ctx, `UPDATE auth_sessions SET last_seen = ? WHERE hash = ? AND last_seen < ?`, ts)
}

// touch runs an update for each use, in one transaction.
func (s *Store) touch(ctx context.Context, query string, ts []auth.Touch) error {
	if len(ts) == 0 {
		return nil
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, s.d.q(query))
		if err != nil {
			return fmt.Errorf("sqlstore: recording uses: %w", err)
		}
		defer st.Close()
		for _, t := range ts {
			at := nanos(t.At)
			if _, err := st.ExecContext(ctx, at, t.Hash[:], at); err != nil {
				return fmt.Errorf("sqlstore: recording uses: %w", err)
			}
		}
		return nil
	})
}

// CreateKey implements auth.Store.
func (s *Store) CreateKey(ctx context.Context, k auth.Key) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		var one int
		err := tx.QueryRowContext(ctx, s.d.q(`SELECT 1 FROM auth_users WHERE name = ?`), k.User).Scan(&one)
		if err != nil {
			return wrap(err, fmt.Sprintf("user %q", k.User))
		}
		res, err := tx.ExecContext(ctx, s.d.q(`INSERT INTO auth_keys (hash, user_name, name, created) VALUES (?, ?, ?, ?)
			ON CONFLICT DO NOTHING`), k.Hash[:], k.User, k.Name, nanos(k.Created))
		if err != nil {
			return fmt.Errorf("sqlstore: creating key %q: %w", k.Name, err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return exists("key", k.Name)
		}
		return nil
	})
}

// Key implements auth.Store.
func (s *Store) Key(ctx context.Context, h auth.Hash) (auth.Key, error) {
	k := auth.Key{Hash: h}
	var created int64
	var used sql.NullInt64
	err := s.db.QueryRowContext(ctx, s.d.q(`SELECT user_name, name, created, last_used FROM auth_keys WHERE hash = ?`), h[:]).
		Scan(&k.User, &k.Name, &created, &used)
	if err != nil {
		return auth.Key{}, wrap(err, "key")
	}
	k.Created = fromNanos(created)
	if used.Valid {
		k.LastUsed = fromNanos(used.Int64)
	}
	return k, nil
}

// Keys implements auth.Store.
func (s *Store) Keys(ctx context.Context, user string) ([]auth.Key, error) {
	rows, err := s.db.QueryContext(ctx, s.d.q(`SELECT hash, name, created, last_used FROM auth_keys WHERE user_name = ? ORDER BY name`), user)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: keys: %w", err)
	}
	defer rows.Close()
	var ks []auth.Key
	for rows.Next() {
		k := auth.Key{User: user}
		var hash []byte
		var created int64
		var used sql.NullInt64
		if err := rows.Scan(&hash, &k.Name, &created, &used); err != nil {
			return nil, fmt.Errorf("sqlstore: keys: %w", err)
		}
		copy(k.Hash[:], hash)
		k.Created = fromNanos(created)
		if used.Valid {
			k.LastUsed = fromNanos(used.Int64)
		}
		ks = append(ks, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlstore: keys: %w", err)
	}
	return ks, nil
}

// DeleteKey implements auth.Store.
func (s *Store) DeleteKey(ctx context.Context, user, name string) (auth.Hash, error) {
	var hash []byte
	err := s.db.QueryRowContext(ctx, s.d.q(`DELETE FROM auth_keys WHERE user_name = ? AND name = ? RETURNING hash`), user, name).Scan(&hash)
	if err != nil {
		return auth.Hash{}, wrap(err, fmt.Sprintf("key %q", name))
	}
	var h auth.Hash
	copy(h[:], hash)
	return h, nil
}

// TouchKeys implements auth.Store.
func (s *Store) TouchKeys(ctx context.Context, ts []auth.Touch) error {
	return s.touch(ctx, `UPDATE auth_keys SET last_used = ? WHERE hash = ? AND (last_used IS NULL OR last_used < ?)`, ts)
}
