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

// step computes a rule's next instances and transitions from its current instances and the
// rows of its query at now (the groups that satisfy the condition). Pending instances that
// stop satisfying it vanish without a transition; firing ones resolve. Firing and resolved
// transitions notify every channel but while silenced.
func step(r state.AlertRule, channels []Channel, cur []state.AlertInstance, silenced map[string]bool,
	rows []pvql.Row, now time.Time) state.AlertChange {
	now = now.UTC().Truncate(time.Millisecond)
	var ch state.AlertChange
	seen := map[string]bool{}
	byGroup := map[string]state.AlertInstance{}
	for _, in := range cur {
		byGroup[in.Group] = in
	}
	event := func(in state.AlertInstance, st string) {
		e := state.AlertEvent{Rule: r.ID, Group: in.Group, State: st, Values: in.Values, At: now}
		if st != Pending && !silenced[""] && !silenced[in.Group] {
			body := body(r, in, st, now)
			for _, c := range channels {
				if c.BGP != "" {
					continue // announced by the mitigator, from the instances
				}
				t := c.Webhook
				if c.Email != "" {
					t = mailto + c.Email
				}
				e.Deliveries = append(e.Deliveries, state.AlertDelivery{Target: t, Body: body})
			}
		}
		ch.Events = append(ch.Events, e)
	}
	for _, row := range rows {
		g := groupJSON(row.Keys)
		if seen[g] {
			continue
		}
		seen[g] = true
		in, ok := byGroup[g]
		in.Rule, in.Group, in.Values = r.ID, g, valuesJSON(row.Values)
		switch {
		case !ok && r.For <= 0:
			in.State, in.Since = Firing, now
			event(in, Firing)
		case !ok:
			in.State, in.Since = Pending, now
			event(in, Pending)
		case in.State == Pending && now.Sub(in.Since) >= r.For:
			in.State, in.Since = Firing, now
			event(in, Firing)
		}
		ch.Instances = append(ch.Instances, in)
	}
	for _, in := range cur {
		if !seen[in.Group] && in.State == Firing {
			event(in, Resolved)
		}
	}
	return ch
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
