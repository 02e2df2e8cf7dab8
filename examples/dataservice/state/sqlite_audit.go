package state

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"
)

// AppendAudit adds e to the audit trail and drops the events past Limits.AuditEvents.
func (s *SQLite) AppendAudit(ctx context.Context, e AuditEvent) error {
	details := string(e.Details)
	if details == "" {
		details = "{}"
	}
	_, ms := s.stamp()
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO audit (time, user, key, address, action, details) VALUES (?, ?, ?, ?, ?, ?)`,
			ms, e.User, e.Key, e.Address, e.Action, details)
		if err != nil {
			return err
		}
		id, err := res.LastInsertId()
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM audit WHERE id <= ?`, id-int64(s.limits.AuditEvents))
		return err
	})
	return wrap("append to the audit trail", err)
}

// Audit returns the newest events at or after since, at most limit.
func (s *SQLite) Audit(ctx context.Context, since time.Time, limit int) ([]AuditEvent, error) {
	var out []AuditEvent
	err := s.read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT id, time, user, key, address, action, details FROM audit
			WHERE time >= ? ORDER BY id DESC LIMIT ?`, since.UnixMilli(), max(limit, 0))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var e AuditEvent
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
