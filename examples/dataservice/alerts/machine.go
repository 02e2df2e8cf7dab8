package alerts

import (
	"encoding/json"
	"math"
	"strings"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/pvql"
	"github.com/fnapi/fnapi/examples/dataservice/state"
)

// The states of an alert, and "resolved", the transition out of firing.
const (
	Pending  = "pending"
	Firing   = "firing"
	Resolved = "resolved"
)

// notification is the webhook's JSON body (DESIGN.md, "Capture, context and alerts"), also
// the source of the e-mail.
type notification struct {
	Rule struct {
		ID       string            `json:"id"`
		Name     string            `json:"name"`
		Severity string            `json:"severity"`
		Labels   map[string]string `json:"labels"`
	} `json:"rule"`
	State  string          `json:"state"`
	Group  json.RawMessage `json:"group"`
	Values json.RawMessage `json:"values"`
	Since  time.Time       `json:"since"`
	At     time.Time       `json:"at"`
}

// Channel prefixes of a delivery's target: a webhook's URL is its own target.
const mailto = "mailto:"

// bounds are what one evaluation of a rule may write (docs/security.md, Limits), so that a
// rule over records anyone may ingest cannot fill the state store that also holds the users.
type bounds struct {
	// transitions is the most transitions the evaluation makes (Options.MaxTransitions, and
	// what is left of Options.MaxHourlyTransitions); the others wait for the next
	// evaluations.
	transitions int
	// room is how many more notifications of the rule's owner's rules may wait to be sent
	// (Options.MaxWaiting less those waiting); a transition whose channels do not fit is
	// recorded, and its deliveries stored done, not sent, with notSent as their error.
	room int
}

// Bounds of one rule's evaluation (docs/security.md, "Limits"), the defaults of Options.
const (
	// DefaultMaxTransitions is the most transitions one evaluation of a rule makes: as many
	// history events, and notifications each to every channel.
	DefaultMaxTransitions = 100
	// DefaultMaxHourlyTransitions is the most transitions of one owner's rules in an hour
	// (their events in the history, some 300 bytes each).
	DefaultMaxHourlyTransitions = 10000
	// DefaultMaxWaiting is the most notifications of one owner's rules waiting to be sent:
	// some 25 MB at most, with the largest labels a rule may have.
	DefaultMaxWaiting = 1000
)

// bounds returns the bounds of an evaluation of a rule whose owner's rules hold load.
func (o *Options) bounds(load state.AlertLoad) bounds {
	return bounds{transitions: min(o.MaxTransitions, o.MaxHourlyTransitions-load.LastHour), room: o.MaxWaiting - load.Waiting}
}

// notSent is the error of a delivery made while its owner's rules had Options.MaxWaiting
// notifications waiting, shown on the channel.
const notSent = "not sent: too many notifications of this owner's rules were waiting to be sent; " +
	"mend the channels that fail (their errors say why) or make the rules' groups fewer"

// step computes a rule's next instances and transitions from its current instances and the
// rows of its query at now (the groups that satisfy the condition), within b. Pending
// instances that stop satisfying it vanish without a transition; firing ones resolve. Firing
// and resolved transitions notify every channel but while silenced. Past b.transitions, a
// transition waits: its group stays as it was (a new one is not an alert yet, a firing one
// stays firing) for the next evaluation to carry on, and deferred counts them.
func step(r state.AlertRule, channels []Channel, cur []state.AlertInstance, silenced map[string]bool,
	rows []pvql.Row, now time.Time, b bounds) (ch state.AlertChange, deferred int) {
	now = now.UTC().Truncate(time.Millisecond)
	seen := map[string]bool{}
	byGroup := map[string]state.AlertInstance{}
	for _, in := range cur {
		byGroup[in.Group] = in
	}
	targets := deliveryTargets(channels)
	// event records in's transition to st, false when b allows no more.
	event := func(in state.AlertInstance, st string) bool {
		if len(ch.Events) >= b.transitions {
			deferred++
			return false
		}
		e := state.AlertEvent{Rule: r.ID, Group: in.Group, State: st, Values: in.Values, At: now}
		if st != Pending && !silenced[""] && !silenced[in.Group] && len(targets) > 0 {
			// A transition notifies all its channels or, past the room, none.
			d := state.AlertDelivery{Done: true, Error: notSent}
			if len(targets) <= b.room {
				b.room -= len(targets)
				d = state.AlertDelivery{Body: body(r, in, st, now)}
			}
			for _, t := range targets {
				d.Target = t
				e.Deliveries = append(e.Deliveries, d)
			}
		}
		ch.Events = append(ch.Events, e)
		return true
	}
	for _, row := range rows {
		g := groupJSON(row.Keys)
		if seen[g] {
			continue
		}
		seen[g] = true
		in, ok := byGroup[g]
		was := in
		in.Rule, in.Group, in.Values = r.ID, g, valuesJSON(row.Values)
		switch {
		case !ok:
			in.State, in.Since = Pending, now
			if r.For <= 0 {
				in.State = Firing
			}
			if !event(in, in.State) {
				continue // not an alert yet
			}
		case in.State == Pending && now.Sub(in.Since) >= r.For:
			in.State, in.Since = Firing, now
			if !event(in, Firing) {
				in.State, in.Since = was.State, was.Since
			}
		}
		ch.Instances = append(ch.Instances, in)
	}
	for _, in := range cur {
		if !seen[in.Group] && in.State == Firing && !event(in, Resolved) {
			ch.Instances = append(ch.Instances, in) // resolves at a next evaluation
		}
	}
	return ch, deferred
}

// deliveryTargets are the targets of the deliveries to channels: a webhook's URL, or mailto:
// and an e-mail address. A bgp channel has none: the mitigator announces from the instances.
func deliveryTargets(channels []Channel) []string {
	var out []string
	for _, c := range channels {
		switch {
		case c.BGP != "":
		case c.Email != "":
			out = append(out, mailto+c.Email)
		case c.Webhook != "":
			out = append(out, c.Webhook)
		}
	}
	return out
}

func body(r state.AlertRule, in state.AlertInstance, st string, now time.Time) []byte {
	var n notification
	n.Rule.ID, n.Rule.Name, n.Rule.Severity, n.Rule.Labels = r.ID, r.Name, r.Severity, r.Labels
	if n.Rule.Labels == nil {
		n.Rule.Labels = map[string]string{}
	}
	n.State, n.Group, n.Values, n.Since, n.At = st, json.RawMessage(in.Group), in.Values, in.Since, now
	b, _ := json.Marshal(n)
	return b
}

// groupJSON renders a group's keys as stored and answered: a compact JSON array.
func groupJSON(keys []any) string {
	if len(keys) == 0 {
		return "[]"
	}
	b, err := json.Marshal(keys)
	if err != nil {
		return "[]"
	}
	return string(b)
}

// valuesJSON renders values as a JSON array, null for NaN (a division by zero).
func valuesJSON(vs []float64) json.RawMessage {
	out := make([]any, len(vs))
	for i, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		out[i] = v
	}
	b, _ := json.Marshal(out)
	return b
}

// canonicalGroup parses a group as a caller gives it and renders it as stored.
func canonicalGroup(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || strings.TrimSpace(string(raw)) == "null" {
		return "", true
	}
	d := json.NewDecoder(strings.NewReader(string(raw)))
	d.UseNumber()
	var keys []any
	if err := d.Decode(&keys); err != nil {
		return "", false
	}
	return groupJSON(keys), true
}
