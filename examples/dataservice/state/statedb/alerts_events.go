package statedb

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/state"
)

// Instances returns the instances pending or firing, of every rule when ruleID is "".
func (a *Alerts) Instances(ctx context.Context, ruleID string) ([]state.AlertInstance, error) {
	var out []state.AlertInstance
	err := a.s.read(ctx, func(tx *sql.Tx) error {
		var err error
		out, err = instances(ctx, tx, ruleID)
		return err
	})
	return out, wrap("list alerts", err)
}

func instances(ctx context.Context, q queryer, ruleID string) ([]state.AlertInstance, error) {
	// Two statements, not "rule = ? OR ? = ''", which scanned every rule's instances for one
	// rule's: an evaluation reads its rule's, and with thousands firing that was most of it.
	query, args := `SELECT rule, grp, state, since, vals, acked FROM alert_instances ORDER BY since, rule, grp`, []any(nil)
	if ruleID != "" {
		query = `SELECT rule, grp, state, since, vals, acked FROM alert_instances WHERE rule = ? ORDER BY since, rule, grp`
		args = []any{ruleID}
	}
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []state.AlertInstance
	for rows.Next() {
		var in state.AlertInstance
		var since, acked int64
		var vals string
		if err := rows.Scan(&in.Rule, &in.Group, &in.State, &since, &vals, &acked); err != nil {
			return nil, err
		}
		in.Since, in.Values, in.Acked = fromMillis(since), json.RawMessage(vals), acked != 0
		out = append(out, in)
	}
	return out, rows.Err()
}

// Silenced returns, for the rule, the groups silenced at the given time ("" for all of them).
func silenced(ctx context.Context, q queryer, ruleID string, at time.Time) (map[string]bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT grp FROM alert_silences WHERE rule = ? AND until_ms > ?`, ruleID, at.UnixMilli())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			return nil, err
		}
		out[g] = true
	}
	return out, rows.Err()
}

// Evaluate runs next on the rule's current instances and the groups silenced now, in one
// write transaction, and stores what it returns: the instances replace the old ones; the
// events and their deliveries are added (a delivery already Done with its Error and no body). Since
// writes are serialised (one writer on SQLite, one lock on PostgreSQL), two nodes evaluating
// one rule at once see each other's transitions and never make one twice. A rule deleted
// meanwhile is a *NotFoundError.
func (a *Alerts) Evaluate(ctx context.Context, ruleID string,
	next func(current []state.AlertInstance, silenced map[string]bool) (state.AlertChange, error)) error {
	err := a.s.write(ctx, func(tx *sql.Tx) error {
		if _, err := rule(ctx, tx, ruleID); err != nil {
			return err
		}
		cur, err := instances(ctx, tx, ruleID)
		if err != nil {
			return err
		}
		now, _ := a.s.stamp()
		sil, err := silenced(ctx, tx, ruleID, now)
		if err != nil {
			return err
		}
		ch, err := next(cur, sil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM alert_instances WHERE rule = ?`, ruleID); err != nil {
			return err
		}
		for _, in := range ch.Instances {
			if _, err := tx.ExecContext(ctx, `INSERT INTO alert_instances (rule, grp, state, since, vals, acked)
				VALUES (?, ?, ?, ?, ?, ?)`, ruleID, in.Group, in.State, in.Since.UnixMilli(), string(in.Values), boolInt(in.Acked)); err != nil {
				return err
			}
		}
		for _, e := range ch.Events {
			var id int64
			if err := tx.QueryRowContext(ctx, `INSERT INTO alert_events (rule, grp, state, vals, at_ms)
				VALUES (?, ?, ?, ?, ?) RETURNING id`, ruleID, e.Group, e.State, string(e.Values), e.At.UnixMilli()).Scan(&id); err != nil {
				return err
			}
			for _, d := range e.Deliveries {
				if _, err := tx.ExecContext(ctx, `INSERT INTO alert_deliveries (event, rule, target, body, attempts, error, done, due)
					VALUES (?, ?, ?, ?, 0, ?, ?, ?)`, id, ruleID, d.Target, string(d.Body), d.Error, boolInt(d.Done), e.At.UnixMilli()); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return wrap("evaluate alert rule", err)
}

// Loads returns what each owner's rules hold (state.AlertRule.Owner; "" for the rules
// recorded without one): their notifications neither sent nor given up, and their events
// after at less an hour. Two reads of every owner's at once, for an evaluation round.
func (a *Alerts) Loads(ctx context.Context, at time.Time) (map[string]state.AlertLoad, error) {
	out := map[string]state.AlertLoad{}
	count := func(tx *sql.Tx, query string, arg any, add func(l *state.AlertLoad, n int)) error {
		rows, err := tx.QueryContext(ctx, query, arg)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var owner string
			var n int
			if err := rows.Scan(&owner, &n); err != nil {
				return err
			}
			l := out[owner]
			add(&l, n)
			out[owner] = l
		}
		return rows.Err()
	}
	err := a.s.read(ctx, func(tx *sql.Tx) error {
		err := count(tx, `SELECT r.owner, count(*) FROM alert_deliveries d JOIN alert_rules r ON r.id = d.rule
			WHERE d.done = ? GROUP BY r.owner`, 0, func(l *state.AlertLoad, n int) { l.Waiting = n })
		if err != nil {
			return err
		}
		return count(tx, `SELECT r.owner, count(*) FROM alert_events e JOIN alert_rules r ON r.id = e.rule
			WHERE e.at_ms > ? GROUP BY r.owner`, at.Add(-time.Hour).UnixMilli(), func(l *state.AlertLoad, n int) { l.LastHour = n })
	})
	return out, wrap("read alert loads", err)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// History returns the events q selects, newest first.
func (a *Alerts) History(ctx context.Context, q state.AlertQuery) ([]state.AlertEvent, error) {
	until := q.Until.UnixMilli()
	if q.Until.IsZero() {
		until = 1<<63 - 1
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 1000
	}
	query := `SELECT id, rule, grp, state, vals, at_ms, detail FROM alert_events
		WHERE (rule = ? OR ? = '') AND at_ms >= ? AND at_ms < ?`
	args := []any{q.Rule, q.Rule, q.Since.UnixMilli(), until}
	if len(q.Labels) > 0 {
		ids, err := a.rulesLabelled(ctx, q.Labels)
		if err != nil || len(ids) == 0 {
			return nil, err
		}
		query += ` AND rule IN (?` + strings.Repeat(`, ?`, len(ids)-1) + `)`
		for _, id := range ids {
			args = append(args, id)
		}
	}
	query += ` ORDER BY id DESC LIMIT ?`
	args = append(args, limit)
	var out []state.AlertEvent
	err := a.s.read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var e state.AlertEvent
			var vals, detail string
			var at int64
			if err := rows.Scan(&e.ID, &e.Rule, &e.Group, &e.State, &vals, &at, &detail); err != nil {
				return err
			}
			e.Values, e.At = json.RawMessage(vals), fromMillis(at)
			if detail != "" {
				e.Detail = json.RawMessage(detail)
			}
			out = append(out, e)
		}
		return rows.Err()
	})
	return out, wrap("read alert history", err)
}

// rulesLabelled returns the IDs of the rules that carry every one of labels.
func (a *Alerts) rulesLabelled(ctx context.Context, labels map[string]string) ([]string, error) {
	rs, err := a.Rules(ctx)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, r := range rs {
		if hasAll(r.Labels, labels) {
			ids = append(ids, r.ID)
		}
	}
	return ids, nil
}

// hasAll says whether have holds every label of want.
func hasAll(have, want map[string]string) bool {
	for k, v := range want {
		if w, ok := have[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// PruneHistory deletes the events before the given time, and the deliveries done before it.
func (a *Alerts) PruneHistory(ctx context.Context, before time.Time) error {
	err := a.s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM alert_events WHERE at_ms < ?`, before.UnixMilli()); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM alert_deliveries WHERE done = 1 AND due < ?`, before.UnixMilli())
		return err
	})
	return wrap("prune alert history", err)
}

// Claim returns up to limit deliveries due at now, oldest first, and makes them due again
// only after hold: whoever claims them sends them, and no other sender does meanwhile.
func (a *Alerts) Claim(ctx context.Context, now time.Time, hold time.Duration, limit int) ([]state.AlertDelivery, error) {
	var out []state.AlertDelivery
	err := a.s.write(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT id, event, rule, target, body, attempts, error, due FROM alert_deliveries
			WHERE done = 0 AND due <= ? ORDER BY id LIMIT ?`, now.UnixMilli(), limit)
		if err != nil {
			return err
		}
		for rows.Next() {
			var d state.AlertDelivery
			var body string
			var due int64
			if err := rows.Scan(&d.ID, &d.Event, &d.Rule, &d.Target, &body, &d.Attempts, &d.Error, &due); err != nil {
				rows.Close()
				return err
			}
			d.Body, d.Due = []byte(body), fromMillis(due)
			out = append(out, d)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, d := range out {
			if _, err := tx.ExecContext(ctx, `UPDATE alert_deliveries SET due = ? WHERE id = ?`,
				now.Add(hold).UnixMilli(), d.ID); err != nil {
				return err
			}
		}
		return nil
	})
	return out, wrap("claim alert deliveries", err)
}

// Finish records an attempt of the delivery: done (acknowledged, or given up), or failed
// with errText and due again at next. A delivery done keeps no body: it is kept, for the
// channel's state, as long as the history, and the bodies were most of its bytes.
func (a *Alerts) Finish(ctx context.Context, id int64, done bool, errText string, next time.Time) error {
	err := a.s.write(ctx, func(tx *sql.Tx) error {
		inc := 1
		if done && errText == "" {
			inc = 0
		}
		query := `UPDATE alert_deliveries SET done = ?, error = ?, attempts = attempts + ?, due = ? WHERE id = ?`
		if done {
			query = `UPDATE alert_deliveries SET done = ?, error = ?, attempts = attempts + ?, due = ?, body = '' WHERE id = ?`
		}
		_, err := tx.ExecContext(ctx, query, boolInt(done), errText, inc, next.UnixMilli(), id)
		return err
	})
	return wrap("finish alert delivery", err)
}

// Postpone makes the delivery id due again at next without counting an attempt: it was
// claimed but not attempted (errText says why, shown on its channel).
func (a *Alerts) Postpone(ctx context.Context, id int64, errText string, next time.Time) error {
	err := a.s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE alert_deliveries SET error = ?, due = ? WHERE id = ? AND done = 0`,
			errText, next.UnixMilli(), id)
		return err
	})
	return wrap("postpone alert delivery", err)
}

// ChannelStatus is the state of one channel of a rule: its latest delivery.
type ChannelStatus struct {
	Rule, Target string
	// Attempts and Error are the latest delivery's failed attempts and last failure.
	Attempts int
	Error    string
	// Done: that delivery was acknowledged or given up.
	Done bool
}

// Channels returns the latest delivery of each rule's channels.
func (a *Alerts) Channels(ctx context.Context) ([]ChannelStatus, error) {
	var out []ChannelStatus
	err := a.s.read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT rule, target, attempts, error, done FROM alert_deliveries
			WHERE id IN (SELECT max(id) FROM alert_deliveries GROUP BY rule, target)`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c ChannelStatus
			var done int64
			if err := rows.Scan(&c.Rule, &c.Target, &c.Attempts, &c.Error, &done); err != nil {
				return err
			}
			c.Done = done != 0
			out = append(out, c)
		}
		return rows.Err()
	})
	return out, wrap("read alert channels", err)
}
