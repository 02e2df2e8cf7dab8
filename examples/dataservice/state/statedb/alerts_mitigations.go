package statedb

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/fnapi/fnapi/examples/dataservice/state"
)

// Mitigations returns the routes that rules' bgp channels announced, refused or withdrew
// lately (state.AlertMitigation).
func (a *Alerts) Mitigations(ctx context.Context) ([]state.AlertMitigation, error) {
	var out []state.AlertMitigation
	err := a.s.read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT rule, grp, kind, state, at_ms, route, query FROM alert_mitigations
			ORDER BY at_ms, rule, grp, kind`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var m state.AlertMitigation
			var at int64
			var route string
			if err := rows.Scan(&m.Rule, &m.Group, &m.Kind, &m.State, &at, &route, &m.Query); err != nil {
				return err
			}
			m.At, m.Route = fromMillis(at), json.RawMessage(route)
			out = append(out, m)
		}
		return rows.Err()
	})
	return out, wrap("list alert mitigations", err)
}

// Mitigate stores m (or deletes it when m.State is "") and, when e is not nil, adds e to the
// history, in one transaction.
func (a *Alerts) Mitigate(ctx context.Context, m state.AlertMitigation, e *state.AlertEvent) error {
	err := a.s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM alert_mitigations WHERE rule = ? AND grp = ? AND kind = ?`,
			m.Rule, m.Group, m.Kind); err != nil {
			return err
		}
		if m.State != "" {
			if _, err := tx.ExecContext(ctx, `INSERT INTO alert_mitigations (rule, grp, kind, state, at_ms, route, query)
				VALUES (?, ?, ?, ?, ?, ?, ?)`, m.Rule, m.Group, m.Kind, m.State, m.At.UnixMilli(), string(m.Route), m.Query); err != nil {
				return err
			}
		}
		if e == nil {
			return nil
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO alert_events (rule, grp, state, vals, at_ms, detail) VALUES (?, ?, ?, ?, ?, ?)`,
			e.Rule, e.Group, e.State, string(e.Values), e.At.UnixMilli(), string(e.Detail))
		return err
	})
	return wrap("record alert mitigation", err)
}

// Silenced returns the groups of the rule silenced now ("" when all of them are).
func (a *Alerts) Silenced(ctx context.Context, ruleID string) (map[string]bool, error) {
	var out map[string]bool
	err := a.s.read(ctx, func(tx *sql.Tx) error {
		now, _ := a.s.stamp()
		var err error
		out, err = silenced(ctx, tx, ruleID, now)
		return err
	})
	return out, wrap("read alert silences", err)
}
