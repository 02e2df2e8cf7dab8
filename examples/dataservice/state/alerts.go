package state

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Alerts keeps the alert rules, their instances (groups pending or firing), the history of
// their transitions, silences, and the outbox of notifications still to deliver, in the same
// database as a SQLite or Postgres store. Every transition is written in one transaction with
// the notifications it causes, so that a node that dies loses none and sends none twice (see
// package alerts). Safe for concurrent use.
//
// The alert tables migrate on their own track (table alert_schema), apart from the store's
// migrations, so that the store's schema and the alerts' grow independently.
type Alerts struct {
	s *SQLite
}

// AlertRule is a standing query and where its alerts go.
type AlertRule struct {
	// ID is a UUID assigned by the store.
	ID string
	// Name names the rule for people.
	Name string
	// Query is the rule's query expression; its HAVING is the condition.
	Query string
	// Interval is how often the rule is evaluated; For how long a group must satisfy the
	// condition before it fires.
	Interval, For time.Duration
	// Severity is a free word ("critical", "warning").
	Severity string
	// Labels are copied into every notification.
	Labels map[string]string
	// Notify is the rule's channels as a JSON array, secrets included: never answered.
	Notify json.RawMessage
	// Owner is the user who created the rule (package alerts lets only them and
	// administrators change it); the rules of one owner are bounded (CreateRule). Rules
	// stored before owners were kept to the creator hold the user who last wrote them.
	Owner string
	// Created and Updated are stamped by the store.
	Created, Updated time.Time
}

// AlertInstance is one group of a rule that satisfies its condition.
type AlertInstance struct {
	// Rule is the rule's ID; Group the group's keys as a JSON array.
	Rule, Group string
	// State is "pending" or "firing".
	State string
	// Since is when the group began to satisfy the condition (pending) or fired (firing).
	Since time.Time
	// Values are the group's values at the last evaluation, as a JSON array.
	Values json.RawMessage
	// Acked is set by Acknowledge: someone is on it.
	Acked bool
}

// AlertEvent is one transition of an instance, with the values that caused it.
type AlertEvent struct {
	// ID orders the events; assigned by the store.
	ID int64
	// Rule is the rule's ID; Group the group's keys as a JSON array.
	Rule, Group string
	// State is the state entered: "pending", "firing" or "resolved".
	State string
	// Values are the group's values then, as a JSON array.
	Values json.RawMessage
	// At is when the transition happened.
	At time.Time
	// Deliveries are the notifications the transition sends (written with it).
	Deliveries []AlertDelivery
}

// AlertDelivery is one notification in the outbox: one event sent to one channel.
type AlertDelivery struct {
	// ID is assigned by the store; Event is the event's ID.
	ID, Event int64
	// Rule is the rule's ID; Target the channel (a webhook URL or an e-mail address).
	Rule, Target string
	// Body is what is sent, as the sender makes it.
	Body []byte
	// Attempts counts the failed attempts so far.
	Attempts int
	// Error is the last attempt's failure; empty when none.
	Error string
	// Done is set once the channel acknowledged, or once the sender gave up.
	Done bool
	// Due is when the next attempt may be made.
	Due time.Time
}

// AlertChange is what one evaluation of a rule leaves: its instances, replacing the old ones,
// and the transitions, each with its deliveries.
type AlertChange struct {
	// Instances are the rule's alerts pending or firing after the evaluation.
	Instances []AlertInstance
	// Events are the transitions the evaluation made, with their deliveries.
	Events []AlertEvent
}

// AlertQuery selects events of the history. Zero fields select every event.
type AlertQuery struct {
	// Rule selects one rule's events by its ID.
	Rule string
	// Labels selects the events of the rules that carry every one of these labels.
	Labels map[string]string
	// Since and Until select the events at or after Since and before Until.
	Since, Until time.Time
	// Limit is the most events answered, the newest; 0 means 1000.
	Limit int
}

// OpenAlerts migrates the alert tables of s's database (a *SQLite, or a *Postgres's SQLite)
// and returns them.
func OpenAlerts(ctx context.Context, s *SQLite) (*Alerts, error) {
	a := &Alerts{s: s}
	if err := a.migrate(ctx); err != nil {
		return nil, fmt.Errorf("state: alerts: %w", err)
	}
	return a, nil
}

// alertMigrations are the alert tables' steps; alert_schema counts those applied. Append only.
// Times are Unix milliseconds; "%id%" is the auto-incremented key of each database.
var alertMigrations = []string{
	`CREATE TABLE alert_rules (
		id       TEXT PRIMARY KEY,
		name     TEXT NOT NULL,
		query    TEXT NOT NULL,
		every_ms INTEGER NOT NULL, -- milliseconds
		for_ms   INTEGER NOT NULL,
		severity TEXT NOT NULL,
		labels   TEXT NOT NULL,    -- JSON object
		notify   TEXT NOT NULL,    -- JSON array, secrets included
		owner    TEXT NOT NULL,
		created  INTEGER NOT NULL,
		updated  INTEGER NOT NULL
	);
	CREATE INDEX alert_rules_owner ON alert_rules (owner);
	CREATE TABLE alert_instances (
		rule   TEXT NOT NULL,
		grp    TEXT NOT NULL,      -- JSON array of keys
		state  TEXT NOT NULL,
		since  INTEGER NOT NULL,
		vals   TEXT NOT NULL,
		acked  INTEGER NOT NULL,
		PRIMARY KEY (rule, grp)
	);
	CREATE TABLE alert_events (
		id    %id%,
		rule  TEXT NOT NULL,
		grp   TEXT NOT NULL,
		state TEXT NOT NULL,
		vals  TEXT NOT NULL,
		at_ms INTEGER NOT NULL
	);
	CREATE INDEX alert_events_at ON alert_events (at_ms);
	CREATE INDEX alert_events_rule ON alert_events (rule, at_ms);
	CREATE TABLE alert_silences (
		rule  TEXT NOT NULL,
		grp   TEXT NOT NULL,       -- '' silences every group of the rule
		until_ms INTEGER NOT NULL,
		PRIMARY KEY (rule, grp)
	);
	CREATE TABLE alert_deliveries (
		id       %id%,
		event    INTEGER NOT NULL,
		rule     TEXT NOT NULL,
		target   TEXT NOT NULL,
		body     TEXT NOT NULL,
		attempts INTEGER NOT NULL,
		error    TEXT NOT NULL,
		done     INTEGER NOT NULL,
		due      INTEGER NOT NULL
	);
	CREATE INDEX alert_deliveries_due ON alert_deliveries (done, due);`,
}

// alertDDL returns migration i in the dialect of the store.
func (a *Alerts) alertDDL(i int) string {
	m := alertMigrations[i]
	if a.s.writeLock == "" {
		return strings.ReplaceAll(m, "%id%", "INTEGER PRIMARY KEY AUTOINCREMENT")
	}
	m = strings.ReplaceAll(m, "INTEGER", "BIGINT")
	return strings.ReplaceAll(m, "%id%", "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY")
}

func (a *Alerts) migrate(ctx context.Context) error {
	return a.s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS alert_schema (version INTEGER NOT NULL)`); err != nil {
			return fmt.Errorf("create schema table: %w", err)
		}
		var v int
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM alert_schema`).Scan(&v); err != nil {
			return fmt.Errorf("read schema version: %w", err)
		}
		if v > len(alertMigrations) {
			return newerSchema(v, len(alertMigrations))
		}
		if v == len(alertMigrations) {
			return nil
		}
		for i := v; i < len(alertMigrations); i++ {
			if _, err := tx.ExecContext(ctx, a.alertDDL(i)); err != nil {
				return fmt.Errorf("migrate to alert schema version %d: %w", i+1, err)
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM alert_schema`); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO alert_schema (version) VALUES (?)`, len(alertMigrations))
		return err
	})
}
