package state

import (
	"encoding/json"
	"time"
)

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
	// Detail is the route a mitigation event ("announced", "withdrawn", "refused") is about,
	// as a JSON object; empty for the transitions.
	Detail json.RawMessage
}

// AlertMitigation is a route that a rule's bgp channel announced for one of its groups, or
// refused to announce (package alerts): kept so that what is announced outlives a restart.
type AlertMitigation struct {
	// Rule, Group and Kind ("blackhole" or "flowspec") name it.
	Rule, Group, Kind string
	// State is "announced", "refused" (recorded once while the group fires) or "withdrawn"
	// (waiting before it may be announced again).
	State string
	// At is when it entered State.
	At time.Time
	// Route is the route as a JSON object, as the history shows it.
	Route json.RawMessage
	// Query is a digest of the rule's query when the route was announced: another one now
	// means the rule was changed.
	Query string
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

// AlertStatus is how a rule's last evaluation went, as the node evaluating the rules saw it.
type AlertStatus struct {
	// Rule is the rule's ID; At when it was evaluated.
	Rule string
	At   time.Time
	// Error is why its query failed, "" when it answered; Warning what the rule cannot do
	// or did not do, "" when nothing.
	Error, Warning string
}

// AlertLoad is what one owner's rules hold in the state store as an evaluation round begins,
// which bounds what the round's evaluations of them may write (docs/security.md, "Limits").
type AlertLoad struct {
	// Waiting counts the owner's rules' notifications neither sent nor given up.
	Waiting int
	// LastHour counts the owner's rules' events of the hour before.
	LastHour int
}

// Add returns l with what ch adds to it: its events, and its deliveries to be sent.
func (l AlertLoad) Add(ch AlertChange) AlertLoad {
	for _, e := range ch.Events {
		l.LastHour++
		for _, d := range e.Deliveries {
			if !d.Done {
				l.Waiting++
			}
		}
	}
	return l
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
