package statedb

import (
	"context"
	"database/sql"
	"strings"

	"github.com/fnapi/fnapi/examples/dataservice/state"
)

// statusRows is how many statuses one statement of SetStatuses writes.
const statusRows = 200

// SetStatuses records how the rules' last evaluations went, replacing what was recorded, and
// forgets those of rules deleted since: one write an evaluation round, for every node to
// answer.
func (a *Alerts) SetStatuses(ctx context.Context, sts []state.AlertStatus) error {
	err := a.s.write(ctx, func(tx *sql.Tx) error {
		for len(sts) > 0 {
			n := min(len(sts), statusRows)
			args := make([]any, 0, 4*n)
			for _, st := range sts[:n] {
				args = append(args, st.Rule, st.At.UnixMilli(), st.Error, st.Warning)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO alert_status (rule, at_ms, error, warning) VALUES (?, ?, ?, ?)`+
				strings.Repeat(`, (?, ?, ?, ?)`, n-1)+` ON CONFLICT (rule) DO UPDATE
				SET at_ms = excluded.at_ms, error = excluded.error, warning = excluded.warning`, args...); err != nil {
				return err
			}
			sts = sts[n:]
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM alert_status WHERE rule NOT IN (SELECT id FROM alert_rules)`)
		return err
	})
	return wrap("record alert rule status", err)
}

// Statuses returns the statuses recorded, by rule.
func (a *Alerts) Statuses(ctx context.Context) (map[string]state.AlertStatus, error) {
	out := map[string]state.AlertStatus{}
	err := a.s.read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT rule, at_ms, error, warning FROM alert_status`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var st state.AlertStatus
			var at int64
			if err := rows.Scan(&st.Rule, &at, &st.Error, &st.Warning); err != nil {
				return err
			}
			st.At = fromMillis(at)
			out[st.Rule] = st
		}
		return rows.Err()
	})
	return out, wrap("read alert rule status", err)
}
