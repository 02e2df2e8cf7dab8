package statedb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/state"
)

const ruleColumns = `id, name, query, every_ms, for_ms, severity, labels, notify, owner, created, updated`

func scanRule(r scanner) (state.AlertRule, error) {
	var ru state.AlertRule
	var every, forMS, created, updated int64
	var labels, notify string
	if err := r.Scan(&ru.ID, &ru.Name, &ru.Query, &every, &forMS, &ru.Severity, &labels, &notify, &ru.Owner,
		&created, &updated); err != nil {
		return state.AlertRule{}, err
	}
	ru.Interval, ru.For = time.Duration(every)*time.Millisecond, time.Duration(forMS)*time.Millisecond
	if err := json.Unmarshal([]byte(labels), &ru.Labels); err != nil {
		return state.AlertRule{}, err
	}
	ru.Notify = json.RawMessage(notify)
	ru.Created, ru.Updated = fromMillis(created), fromMillis(updated)
	return ru, nil
}

// Rules returns every rule, oldest first.
func (a *Alerts) Rules(ctx context.Context) ([]state.AlertRule, error) {
	var out []state.AlertRule
	err := a.s.read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT `+ruleColumns+` FROM alert_rules ORDER BY created, id`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			r, err := scanRule(rows)
			if err != nil {
				return err
			}
			out = append(out, r)
		}
		return rows.Err()
	})
	return out, wrap("list alert rules", err)
}

// Rule returns the rule with the given ID.
func (a *Alerts) Rule(ctx context.Context, id string) (state.AlertRule, error) {
	var r state.AlertRule
	err := a.s.read(ctx, func(tx *sql.Tx) error {
		var err error
		r, err = rule(ctx, tx, id)
		return err
	})
	return r, wrap("get alert rule", err)
}

func rule(ctx context.Context, q queryer, id string) (state.AlertRule, error) {
	r, err := scanRule(q.QueryRowContext(ctx, `SELECT `+ruleColumns+` FROM alert_rules WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return state.AlertRule{}, &state.NotFoundError{Kind: "alert rule", ID: id}
	}
	return r, err
}

// CreateRule stores a new rule and returns it with its ID and times. An owner holds at most
// perOwner rules; one more is a *LimitError and nothing is stored.
func (a *Alerts) CreateRule(ctx context.Context, r state.AlertRule, perOwner int) (state.AlertRule, error) {
	t, ms := a.s.stamp()
	r.ID, r.Created, r.Updated = newID(), t, t
	labels, err := json.Marshal(r.Labels)
	if err != nil {
		return state.AlertRule{}, wrap("create alert rule", err)
	}
	err = a.s.write(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM alert_rules WHERE owner = ?`, r.Owner).Scan(&n); err != nil {
			return err
		}
		if n >= perOwner {
			return &state.LimitError{What: "alert rules", Limit: perOwner}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO alert_rules (`+ruleColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.ID, r.Name, r.Query, r.Interval.Milliseconds(), r.For.Milliseconds(), r.Severity, string(labels),
			string(r.Notify), r.Owner, ms, ms)
		return err
	})
	if err != nil {
		return state.AlertRule{}, wrap("create alert rule", err)
	}
	return r, nil
}

// UpdateRule runs change on the rule with the given ID and stores what it leaves. The
// rule's instances are dropped when its query changes (its groups are another question).
func (a *Alerts) UpdateRule(ctx context.Context, id string, change func(*state.AlertRule) error) (state.AlertRule, error) {
	var out state.AlertRule
	err := a.s.write(ctx, func(tx *sql.Tx) error {
		r, err := rule(ctx, tx, id)
		if err != nil {
			return err
		}
		query := r.Query
		if err := change(&r); err != nil {
			return err
		}
		labels, err := json.Marshal(r.Labels)
		if err != nil {
			return err
		}
		t, ms := a.s.stamp()
		r.Updated = t
		if _, err := tx.ExecContext(ctx, `UPDATE alert_rules SET name = ?, query = ?, every_ms = ?, for_ms = ?,
			severity = ?, labels = ?, notify = ?, owner = ?, updated = ? WHERE id = ?`,
			r.Name, r.Query, r.Interval.Milliseconds(), r.For.Milliseconds(), r.Severity, string(labels),
			string(r.Notify), r.Owner, ms, id); err != nil {
			return err
		}
		if r.Query != query {
			if _, err := tx.ExecContext(ctx, `DELETE FROM alert_instances WHERE rule = ?`, id); err != nil {
				return err
			}
		}
		out = r
		return nil
	})
	if err != nil {
		return state.AlertRule{}, wrap("update alert rule", err)
	}
	return out, nil
}

// DeleteRule deletes a rule, its instances and silences, and its notifications not yet
// delivered; its history stays.
func (a *Alerts) DeleteRule(ctx context.Context, id string) error {
	err := a.s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM alert_rules WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return &state.NotFoundError{Kind: "alert rule", ID: id}
		}
		for _, q := range []string{`DELETE FROM alert_instances WHERE rule = ?`, `DELETE FROM alert_silences WHERE rule = ?`,
			`DELETE FROM alert_deliveries WHERE rule = ? AND done = 0`, `DELETE FROM alert_status WHERE rule = ?`} {
			if _, err := tx.ExecContext(ctx, q, id); err != nil {
				return err
			}
		}
		return nil
	})
	return wrap("delete alert rule", err)
}

// Silence silences the rule's group (every group when group is "") until the given time; a
// later call replaces it.
func (a *Alerts) Silence(ctx context.Context, ruleID, group string, until time.Time) error {
	err := a.s.write(ctx, func(tx *sql.Tx) error {
		if _, err := rule(ctx, tx, ruleID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM alert_silences WHERE rule = ? AND grp = ?`, ruleID, group); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO alert_silences (rule, grp, until_ms) VALUES (?, ?, ?)`,
			ruleID, group, until.UnixMilli())
		return err
	})
	return wrap("silence alert", err)
}

// Acknowledge marks the rule's instance of group as acknowledged; a *NotFoundError when the
// group is neither pending nor firing.
func (a *Alerts) Acknowledge(ctx context.Context, ruleID, group string) error {
	err := a.s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE alert_instances SET acked = 1 WHERE rule = ? AND grp = ?`, ruleID, group)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return &state.NotFoundError{Kind: "alert", ID: group}
		}
		return nil
	})
	return wrap("acknowledge alert", err)
}
