package statedb

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/state"
)

// AppendAudit adds e to the audit trail.
func (s *SQLite) AppendAudit(ctx context.Context, e state.AuditEvent) error {
	details := string(e.Details)
	if details == "" {
		details = "{}"
	}
	_, ms := s.stamp()
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO audit (time, actor, key, address, action, details)
			VALUES (?, ?, ?, ?, ?, ?)`, ms, e.User, e.Key, e.Address, e.Action, details)
		return err
	})
	return wrap("append to the audit trail", err)
}

// AuditQuota reports whether the trail has room for another event of actor.
func (s *SQLite) AuditQuota(ctx context.Context, actor string) error {
	var n int
	err := s.read(ctx, func(tx *sql.Tx) error {
		// Counting at most the quota keeps the check cheap for an actor far past it.
		return tx.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM audit WHERE actor = ? LIMIT ?) AS t`,
			actor, s.limits.AuditPerActor).Scan(&n)
	})
	if err == nil && n >= s.limits.AuditPerActor {
		err = &state.LimitError{What: "audit events", Limit: s.limits.AuditPerActor}
	}
	return wrap("check the audit quota", err)
}

// PruneAudit deletes the events made before the given time.
func (s *SQLite) PruneAudit(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM audit WHERE time < ?`, before.UnixMilli())
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, wrap("prune the audit trail", err)
}

// Audit returns the newest events q selects.
func (s *SQLite) Audit(ctx context.Context, q state.AuditQuery) ([]state.AuditEvent, error) {
	before := q.Before
	if before <= 0 {
		before = 1<<63 - 1
	}
	var out []state.AuditEvent
	err := s.read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT id, time, actor, key, address, action, details FROM audit
			WHERE time >= ? AND id < ? ORDER BY id DESC LIMIT ?`, q.Since.UnixMilli(), before, max(q.Limit, 0))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var e state.AuditEvent
			var ms int64
			var details string
			if err := rows.Scan(&e.ID, &ms, &e.User, &e.Key, &e.Address, &e.Action, &details); err != nil {
				return err
			}
			e.Time, e.Details = fromMillis(ms), json.RawMessage(details)
			out = append(out, e)
		}
		return rows.Err()
	})
	return out, wrap("read the audit trail", err)
}
