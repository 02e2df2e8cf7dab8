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

// AppendAuditBounded adds e to the audit trail, making room first among e.User's events of
// e.Action when its events since fill the quota.
func (s *SQLite) AppendAuditBounded(ctx context.Context, e state.AuditEvent, since time.Time) error {
	details := string(e.Details)
	if details == "" {
		details = "{}"
	}
	_, ms := s.stamp()
	err := s.write(ctx, func(tx *sql.Tx) error {
		n, err := countAudit(ctx, tx, e.User, since, s.limits.AuditPerActor)
		if err != nil {
			return err
		}
		if n >= s.limits.AuditPerActor {
			if _, err := tx.ExecContext(ctx, `DELETE FROM audit WHERE id = (SELECT min(id) FROM audit
				WHERE actor = ? AND action = ? AND id >= `+firstSince+`)`, e.User, e.Action, since.UnixMilli()); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO audit (time, actor, key, address, action, details)
			VALUES (?, ?, ?, ?, ?, ?)`, ms, e.User, e.Key, e.Address, e.Action, details)
		return err
	})
	return wrap("append to the audit trail", err)
}

// firstSince is the ID of the first event made at or after a time (the parameter, unix
// milliseconds), by the time index; past every ID when there is none. IDs grow with time, so
// that an actor's events since are those of its ID and up, by the (actor, id) index.
const firstSince = `coalesce((SELECT id FROM audit WHERE time >= ? ORDER BY time, id LIMIT 1), 9223372036854775807)`

// countAudit counts the events of actor made since, up to limit: counting at most the quota
// keeps the check cheap for an actor far past it.
func countAudit(ctx context.Context, tx *sql.Tx, actor string, since time.Time, limit int) (int, error) {
	var n int
	err := tx.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM audit WHERE actor = ? AND id >= `+firstSince+` LIMIT ?) AS t`,
		actor, since.UnixMilli(), limit).Scan(&n)
	return n, err
}

// AuditQuota reports whether the trail has room for another event of actor made since.
func (s *SQLite) AuditQuota(ctx context.Context, actor string, since time.Time) error {
	var n int
	err := s.read(ctx, func(tx *sql.Tx) error {
		var err error
		n, err = countAudit(ctx, tx, actor, since, s.limits.AuditPerActor)
		return err
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
