package alerts

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/bgp"
	"github.com/fnapi/fnapi/examples/dataservice/netctx"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"go.uber.org/zap"
)

// mitigator announces and withdraws the routes of rules' bgp channels. Each pass (each Tick)
// compares the routes wanted, one per firing group and bgp channel, with those the state
// store says are announced:
//
//  1. A route no longer wanted is withdrawn: at once when its rule was deleted or changed
//     (its query or its channels), its group silenced, or its address left mitigation_zones;
//     when its alert resolved, once it has been announced for Options.MitigationHold.
//  2. A route wanted is announced, unless its address is outside mitigation_zones, or
//     Options.MaxMitigations routes are announced already: then it is refused, recorded once
//     while its group fires. A route withdrawn less than Options.MitigationDelay ago waits.
//  3. What the store says is announced but this evaluator has not announced (after a
//     restart, or on the node that took over the lease) is announced again, without a new
//     event: the firing state decides.
//
// On a node without a speaker (Options.Announcer nil: no -bgp) that evaluates rules with bgp
// channels (stored while a node with one evaluated them, or created through one), each route
// wanted is refused (noSpeaker), recorded once while its group fires, with one warning in the
// log per rule; what the store says is announced is left to the next node with a speaker.
//
// Every announcement, withdrawal and refusal is in the alert's history; announcements and
// withdrawals in the audit trail too. Close withdraws what this evaluator announced (the
// lease moves: the next holder announces it from its own speaker).
type mitigator struct {
	s       *Service
	mu      sync.Mutex
	rows    map[mkey]state.AlertMitigation // as stored; nil until loaded
	live    map[mkey]bgp.Mitigation        // announced by this evaluator
	failed  map[mkey]bool                  // failed announcements, logged once
	targets map[string]target              // by query
	warned  map[string]bool                // rules whose bgp channels announce nothing, logged once
}

// mkey names a route: one bgp channel of one group of a rule.
type mkey struct{ rule, group, kind string }

// want is a route wanted now, or why it is refused.
type want struct {
	key      mkey
	route    bgp.Mitigation
	refused  string
	silenced bool
	since    time.Time
	values   json.RawMessage
	query    string
	owner    string
}

func newMitigator(s *Service) *mitigator {
	return &mitigator{s: s, live: map[mkey]bgp.Mitigation{}, failed: map[mkey]bool{}, targets: map[string]target{},
		warned: map[string]bool{}}
}

// pass brings the routes announced in line with rules' firing groups at now.
func (m *mitigator) pass(ctx context.Context, now time.Time, rules []state.AlertRule) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.rows == nil {
		rows, err := m.s.store.Mitigations(ctx)
		if err != nil {
			return err
		}
		m.rows = map[mkey]state.AlertMitigation{}
		for _, r := range rows {
			m.rows[mkey{r.Rule, r.Group, r.Kind}] = r
		}
	}
	byID := map[string]state.AlertRule{}
	var mitigating []state.AlertRule
	for _, r := range rules {
		byID[r.ID] = r
		if mitigates(r) {
			mitigating = append(mitigating, r)
		}
	}
	if len(mitigating) == 0 && len(m.rows) == 0 {
		return nil
	}
	wants, err := m.wanted(ctx, mitigating)
	if err != nil {
		return err
	}
	if m.s.opts.Announcer == nil {
		m.warn(mitigating)
		for k, w := range wants {
			w.refused = noSpeaker
			wants[k] = w
		}
	}
	now = now.UTC().Truncate(time.Millisecond)
	m.retire(ctx, now, wants, byID)
	m.restore(ctx)
	m.announce(ctx, now, wants)
	return nil
}

// warn logs, once per rule, that rules' bgp channels announce nothing on this node.
func (m *mitigator) warn(rules []state.AlertRule) {
	was := m.warned
	m.warned = map[string]bool{}
	for _, r := range rules {
		if !was[r.ID] {
			m.s.log.Warn("alerts: a rule's bgp channels announce nothing: this node evaluates the rules without -bgp",
				zap.String("rule", r.ID), zap.String("name", r.Name))
		}
		m.warned[r.ID] = true
	}
}

// wanted returns the routes the firing groups of rules want, refused ones included.
func (m *mitigator) wanted(ctx context.Context, rules []state.AlertRule) (map[mkey]want, error) {
	out := map[mkey]want{}
	if len(rules) == 0 {
		return out, nil
	}
	var set MitigationSettings
	if m.s.opts.Mitigation != nil {
		set = m.s.opts.Mitigation()
	}
	var zones *netctx.Zones
	if m.s.opts.Zones != nil {
		zones = m.s.opts.Zones()
	}
	for _, r := range rules {
		ins, err := m.s.store.Instances(ctx, r.ID)
		if err != nil {
			return nil, err
		}
		sil, err := m.s.store.Silenced(ctx, r.ID)
		if err != nil {
			return nil, err
		}
		t, terr := m.target(r.Query)
		for _, in := range ins {
			if in.State != Firing {
				continue
			}
			for _, c := range channels(r) {
				if c.BGP == "" {
					continue
				}
				w := want{key: mkey{r.ID, in.Group, c.BGP}, silenced: sil[""] || sil[in.Group], since: in.Since,
					values: in.Values, query: digest(r.Query), owner: r.Owner}
				if terr != nil {
					w.refused = terr.Error()
				} else if w.route, err = t.mitigation(c.BGP, in.Group); err != nil {
					w.refused = err.Error()
				} else {
					w.refused = allowed(&w.route, set, zones)
				}
				out[w.key] = w
			}
		}
	}
	return out, nil
}

// allowed returns why route may not be announced under set and zones, or "", and sets a
// blackhole's next hop.
func allowed(route *bgp.Mitigation, set MitigationSettings, zones *netctx.Zones) string {
	a := route.Prefix.Addr()
	if len(set.Zones) == 0 {
		return "mitigation_zones names no zone: nothing is announced"
	}
	zone := zones.Lookup(a)
	if zone == netctx.Other || !slices.ContainsFunc(set.Zones, func(z string) bool { return netctx.InZone(zone, z) }) {
		return "the address is outside mitigation_zones (its zone: " + zone + ")"
	}
	if route.Flowspec {
		return ""
	}
	for _, h := range set.NextHops {
		if h.Is4() == a.Is4() {
			route.NextHop = h
			return ""
		}
	}
	return "blackhole_nexthop has no address of the family of " + a.String()
}

// target returns the target of a rule's query, parsed once.
func (m *mitigator) target(query string) (target, error) {
	if t, ok := m.targets[query]; ok {
		return t, nil
	}
	t, err := targetOf(query)
	if err == nil {
		m.targets[query] = t
	}
	return t, err
}

// retire withdraws the routes announced that are no longer wanted, and forgets refusals and
// withdrawals that no longer matter.
func (m *mitigator) retire(ctx context.Context, now time.Time, wants map[mkey]want, rules map[string]state.AlertRule) {
	for _, k := range sortedKeys(m.rows) {
		row := m.rows[k]
		w, wanted := wants[k]
		switch row.State {
		case Refused:
			if !wanted {
				m.store(ctx, state.AlertMitigation{Rule: k.rule, Group: k.group, Kind: k.kind}, nil)
			}
		case Withdrawn:
			if now.Sub(row.At) >= m.s.opts.MitigationDelay {
				m.store(ctx, state.AlertMitigation{Rule: k.rule, Group: k.group, Kind: k.kind}, nil)
			}
		case Announced:
			if m.s.opts.Announcer == nil {
				continue // left to the next node with a speaker
			}
			why := ""
			r, exists := rules[k.rule]
			switch {
			case !exists:
				why = "the rule was deleted"
			case digest(r.Query) != row.Query || !slices.ContainsFunc(channels(r), func(c Channel) bool { return c.BGP == k.kind }):
				why = "the rule was changed"
			case wanted && w.silenced:
				why = "silenced"
			case wanted && w.refused != "":
				why = w.refused
			case wanted:
				continue
			case now.Sub(row.At) < m.s.opts.MitigationHold:
				continue // resolved, but held
			default:
				why = "resolved"
			}
			m.withdraw(ctx, now, k, row, why, w, r.Owner)
		}
	}
}

// withdraw withdraws the route of row, recorded with why; a route refused now stays refused.
func (m *mitigator) withdraw(ctx context.Context, now time.Time, k mkey, row state.AlertMitigation, why string, w want, owner string) {
	var route api.AlertMitigation
	_ = json.Unmarshal(row.Route, &route)
	announced := m.live[k]
	if _, ok := m.live[k]; !ok {
		announced = bgpOf(route) // announced before a restart: the speaker may still hold it
	}
	wctx, cancel := context.WithTimeout(ctx, announceTimeout)
	err := m.s.opts.Announcer.Withdraw(wctx, announced)
	cancel()
	if err != nil {
		m.s.log.Warn("alerts: withdrawing a route", zap.String("rule", k.rule), zap.String("prefix", route.Prefix), zap.Error(err))
		return // tried again at the next pass
	}
	delete(m.live, k)
	route.Reason = why
	next := state.AlertMitigation{Rule: k.rule, Group: k.group, Kind: k.kind, State: Withdrawn, At: now, Query: row.Query}
	if w.refused != "" && why == w.refused {
		next.State = Refused // refused now: recorded once, by this withdrawal
	}
	next.Route, _ = json.Marshal(route)
	m.store(ctx, next, &state.AlertEvent{Rule: k.rule, Group: k.group, State: Withdrawn, Values: json.RawMessage("[]"),
		At: now, Detail: next.Route})
	m.audit(ctx, "bgp-withdraw", k, owner, route)
	m.s.log.Info("alerts: route withdrawn", zap.String("rule", k.rule), zap.String("group", k.group),
		zap.String("bgp", k.kind), zap.String("prefix", route.Prefix), zap.String("reason", why))
}

// restore announces again the routes the store says are announced that this evaluator has
// not announced: after a restart, or on the node that took the lease over.
func (m *mitigator) restore(ctx context.Context) {
	if m.s.opts.Announcer == nil {
		return
	}
	for _, k := range sortedKeys(m.rows) {
		row := m.rows[k]
		if _, ok := m.live[k]; ok || row.State != Announced {
			continue
		}
		var route api.AlertMitigation
		_ = json.Unmarshal(row.Route, &route)
		b := bgpOf(route)
		actx, cancel := context.WithTimeout(ctx, announceTimeout)
		err := m.s.opts.Announcer.Announce(actx, b)
		cancel()
		if err != nil {
			m.logFailed(k, route.Prefix, err)
			continue
		}
		m.live[k] = b
		m.s.log.Info("alerts: route announced again", zap.String("rule", k.rule), zap.String("prefix", route.Prefix))
	}
}

// announceTimeout bounds one announcement or withdrawal.
const announceTimeout = 10 * time.Second

// announce announces the routes wanted, oldest alert first, up to the bound; it records the
// refusals once.
func (m *mitigator) announce(ctx context.Context, now time.Time, wants map[mkey]want) {
	ws := slices.SortedFunc(maps.Values(wants), func(a, b want) int {
		return cmp.Or(a.since.Compare(b.since), cmp.Compare(a.key.rule, b.key.rule),
			cmp.Compare(a.key.group, b.key.group), cmp.Compare(a.key.kind, b.key.kind))
	})
	count := 0
	for _, row := range m.rows {
		if row.State == Announced {
			count++
		}
	}
	for _, w := range ws {
		row, stored := m.rows[w.key]
		if stored && row.State == Announced || w.silenced {
			continue
		}
		if w.refused == "" && count >= m.s.opts.MaxMitigations {
			w.refused = strconv.Itoa(m.s.opts.MaxMitigations) + " routes are announced already, the most at once"
		}
		route := apiOf(w.route)
		if w.refused != "" {
			var was api.AlertMitigation
			_ = json.Unmarshal(row.Route, &was)
			if stored && row.State == Refused && was.Reason == w.refused {
				continue // recorded once
			}
			route.Reason = w.refused
			next := state.AlertMitigation{Rule: w.key.rule, Group: w.key.group, Kind: w.key.kind, State: Refused, At: now, Query: w.query}
			next.Route, _ = json.Marshal(route)
			m.store(ctx, next, &state.AlertEvent{Rule: w.key.rule, Group: w.key.group, State: Refused, Values: w.values,
				At: now, Detail: next.Route})
			continue
		}
		if stored && row.State == Withdrawn {
			continue // withdrawn lately: waits out the delay
		}
		actx, cancel := context.WithTimeout(ctx, announceTimeout)
		err := m.s.opts.Announcer.Announce(actx, w.route)
		cancel()
		if err != nil {
			m.logFailed(w.key, route.Prefix, err)
			continue // tried again at the next pass
		}
		delete(m.failed, w.key)
		m.live[w.key] = w.route
		count++
		next := state.AlertMitigation{Rule: w.key.rule, Group: w.key.group, Kind: w.key.kind, State: Announced, At: now, Query: w.query}
		next.Route, _ = json.Marshal(route)
		m.store(ctx, next, &state.AlertEvent{Rule: w.key.rule, Group: w.key.group, State: Announced, Values: w.values,
			At: now, Detail: next.Route})
		m.audit(ctx, "bgp-announce", w.key, w.owner, route)
		m.s.log.Info("alerts: route announced", zap.String("rule", w.key.rule), zap.String("group", w.key.group),
			zap.String("bgp", w.key.kind), zap.String("prefix", route.Prefix))
	}
}

// store records next (deleted when its State is "") and e, and keeps next as the current row.
func (m *mitigator) store(ctx context.Context, next state.AlertMitigation, e *state.AlertEvent) {
	if err := m.s.store.Mitigate(context.WithoutCancel(ctx), next, e); err != nil {
		m.s.log.Error("alerts: recording a route", zap.String("rule", next.Rule), zap.Error(err))
		return
	}
	k := mkey{next.Rule, next.Group, next.Kind}
	if next.State == "" {
		delete(m.rows, k)
	} else {
		m.rows[k] = next
	}
}

// audit writes an announcement or a withdrawal to the audit trail, as the rule's owner's.
func (m *mitigator) audit(ctx context.Context, action string, k mkey, owner string, route api.AlertMitigation) {
	if m.s.opts.Audit == nil {
		return
	}
	d, _ := json.Marshal(map[string]any{"rule": k.rule, "group": json.RawMessage(k.group), "mitigation": route})
	if err := m.s.opts.Audit(context.WithoutCancel(ctx), state.AuditEvent{User: owner, Action: action, Details: d}); err != nil {
		m.s.log.Error("audit trail: an event was not written", zap.String("action", action), zap.Error(err))
	}
}

// logFailed logs a failed announcement once until one succeeds.
func (m *mitigator) logFailed(k mkey, prefix string, err error) {
	if !m.failed[k] {
		m.failed[k] = true
		m.s.log.Warn("alerts: announcing a route", zap.String("rule", k.rule), zap.String("prefix", prefix), zap.Error(err))
	}
}

// release withdraws what this evaluator announced, leaving the store as it is: the next
// holder of the lease (or this node, started again) announces it from the firing state.
func (m *mitigator) release() {
	if m.s.opts.Announcer == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, b := range m.live {
		ctx, cancel := context.WithTimeout(context.Background(), announceTimeout)
		if err := m.s.opts.Announcer.Withdraw(ctx, b); err != nil {
			m.s.log.Warn("alerts: withdrawing a route", zap.String("prefix", b.Prefix.String()), zap.Error(err))
		}
		cancel()
		delete(m.live, k)
	}
	m.rows = nil // read again: another node may change them meanwhile
}

// apiOf is a route as the history shows it.
func apiOf(b bgp.Mitigation) api.AlertMitigation {
	out := api.AlertMitigation{BGP: Blackhole, Prefix: b.Prefix.String(), Protocol: b.Protocol, Port: b.Port}
	if b.Flowspec {
		out.BGP = Flowspec
	}
	if b.NextHop.IsValid() {
		out.NextHop = b.NextHop.String()
	}
	return out
}

// bgpOf is the route the history shows.
func bgpOf(a api.AlertMitigation) bgp.Mitigation {
	b := bgp.Mitigation{Flowspec: a.BGP == Flowspec, Protocol: a.Protocol, Port: a.Port}
	b.Prefix, _ = netip.ParsePrefix(a.Prefix)
	b.NextHop, _ = netip.ParseAddr(a.NextHop)
	return b
}

// digest is a short digest of a rule's query.
func digest(query string) string {
	h := fnv.New64a()
	h.Write([]byte(strings.TrimSpace(query)))
	return fmt.Sprintf("%016x", h.Sum64())
}

func sortedKeys(rows map[mkey]state.AlertMitigation) []mkey {
	return slices.SortedFunc(maps.Keys(rows), func(a, b mkey) int {
		return cmp.Or(cmp.Compare(a.rule, b.rule), cmp.Compare(a.group, b.group), cmp.Compare(a.kind, b.kind))
	})
}
