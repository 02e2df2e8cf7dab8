package statedb

import (
	"context"
	"database/sql"
	"maps"

	"github.com/fnapi/fnapi/examples/dataservice/state"
)

// Config returns the configuration values that were set.
func (s *SQLite) Config(ctx context.Context) (map[string]string, error) {
	var out map[string]string
	err := s.read(ctx, func(tx *sql.Tx) error {
		var err error
		out, err = config(ctx, tx)
		return err
	})
	return out, wrap("get config", err)
}

// UpdateConfig changes configuration values in one transaction.
func (s *SQLite) UpdateConfig(ctx context.Context, change func(map[string]string) error) (map[string]string, error) {
	var out map[string]string
	err := s.write(ctx, func(tx *sql.Tx) error {
		old, err := config(ctx, tx)
		if err != nil {
			return err
		}
		values := maps.Clone(old)
		if err := change(values); err != nil {
			return err
		}
		if len(values) > s.limits.ConfigValues && len(values) > len(old) {
			return &state.LimitError{What: "config", Limit: s.limits.ConfigValues}
		}
		for k := range old {
			if _, ok := values[k]; !ok {
				if _, err := tx.ExecContext(ctx, `DELETE FROM config WHERE key = ?`, k); err != nil {
					return err
				}
			}
		}
		for k, v := range values {
			if ov, ok := old[k]; ok && ov == v {
				continue
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO config (key, value) VALUES (?, ?)
				ON CONFLICT (key) DO UPDATE SET value = excluded.value`, k, v); err != nil {
				return err
			}
		}
		out = values
		return nil
	})
	if err != nil {
		return nil, wrap("update config", err)
	}
	return out, nil
}

func config(ctx context.Context, q queryer) (map[string]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT key, value FROM config`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, rows.Err()
}
