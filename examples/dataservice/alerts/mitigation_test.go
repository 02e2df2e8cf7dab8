package alerts_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/alerts"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/bgp"
	"github.com/fnapi/fnapi/examples/dataservice/netctx"
	"github.com/fnapi/fnapi/examples/dataservice/pvql"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/records/duckdb"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// announcer stands for the BGP speaker: it records the calls, and what is announced.
type announcer struct {
	mu     sync.Mutex
	calls  []string
	routes map[string]bool
}

func routeText(m bgp.Mitigation) string {
	if m.Flowspec {
		return fmt.Sprintf("flowspec %s proto %d port %d", m.Prefix, m.Protocol, m.Port)
	}
	return fmt.Sprintf("blackhole %s via %s", m.Prefix, m.NextHop)
}

func (a *announcer) Announce(_ context.Context, m bgp.Mitigation) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls = append(a.calls, "announce "+routeText(m))
	a.routes[routeText(m)] = true
	return nil
}

func (a *announcer) Withdraw(_ context.Context, m bgp.Mitigation) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls = append(a.calls, "withdraw "+routeText(m))
	delete(a.routes, routeText(m))
	return nil
}

// took returns the calls since the last took.
func (a *announcer) took() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := a.calls
	a.calls = nil
	return out
}

// mitEnv is an alert service announcing through an announcer: zones Customers/ACME
// (198.51.100.0/24, 2001:db8:1::/48) and Transit (203.0.113.0/24), mitigation_zones
// Customers.
type mitEnv struct {
	*env
	ann    *announcer
	opts   alerts.Options
	mu     sync.Mutex
	audits []string
	set    alerts.MitigationSettings
}

func newMitEnv(t *testing.T, o alerts.Options) *mitEnv { return newMitEnvOn(t, o, false) }

// newMitEnvOn is newMitEnv telling the evaluator of the records stored when changes is set.
func newMitEnvOn(t *testing.T, o alerts.Options, changes bool) *mitEnv {
	t.Helper()
	recs, err := duckdb.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { recs.Close() })
	if changes {
		o.Changes = recs.Changes()
	}
	zones, err := netctx.NewZones([]netctx.Zone{
		{Name: "Customers/ACME", Networks: []netip.Prefix{netip.MustParsePrefix("198.51.100.0/24"), netip.MustParsePrefix("2001:db8:1::/48")}},
		{Name: "Transit", Networks: []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24")}}})
	if err != nil {
		t.Fatal(err)
	}
	m := &mitEnv{ann: &announcer{routes: map[string]bool{}},
		set: alerts.MitigationSettings{Zones: []string{"Customers"},
			NextHops: []netip.Addr{netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("100::1")}}}
	if o.Announcer == nil {
		o.Announcer = m.ann
	}
	o.Zones = func() *netctx.Zones { return zones }
	o.Mitigation = func() alerts.MitigationSettings {
		m.mu.Lock()
		defer m.mu.Unlock()
		return m.set
	}
	o.Audit = func(_ context.Context, e state.AuditEvent) error {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.audits = append(m.audits, e.Action+" "+e.User+" "+string(e.Details))
		return nil
	}
	m.opts = o
	m.env = envOver(t, recs, o, true)
	return m
}

// flood ingests a UDP flood to server port 53 at t.
// another starts a second evaluator on m's state and records, with m's options as edit
// changes them, as another node (or this one restarted) would run; it is closed at the end of
// the test; it returns the service too.
func (m *mitEnv) another(t *testing.T, edit func(*alerts.Options)) (*alerts.Service, *alerts.Evaluator) {
	o := m.opts
	edit(&o)
	engine := pvql.New(m.records)
	o.Query = func(ctx context.Context, expr string, now time.Time) ([]pvql.Result, error) {
		return engine.Query(ctx, expr, now, time.Hour)
	}
	o.Live, o.Each = nil, nil
	svc, err := alerts.New(m.st, o)
	if err != nil {
		t.Fatal(err)
	}
	ev := svc.NewEvaluator()
	t.Cleanup(ev.Close)
	return svc, ev
}

func (m *mitEnv) flood(t *testing.T, at int64, server string) {
	t.Helper()
	raw := `{"time": ` + fmt.Sprint(at) + `, "protocol": "udp", "client": {"ip": "192.0.2.99", "port": 40000, "bytes": 0},
		"server": {"ip": "` + server + `", "port": 53, "bytes": 100000}}`
	r, err := records.ParseRecord(json.RawMessage(raw), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := m.records.Ingest(context.Background(), []records.Record{r}); err != nil {
		t.Fatal(err)
	}
}

// events returns the rule's mitigation events, oldest first: "state bgp prefix (reason)".
func (m *mitEnv) events(t *testing.T, rule string) []string {
	t.Helper()
	hs, err := m.st.History(context.Background(), state.AlertQuery{Rule: rule})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := len(hs) - 1; i >= 0; i-- {
		if len(hs[i].Detail) == 0 {
			continue
		}
		var d api.AlertMitigation
		if err := json.Unmarshal(hs[i].Detail, &d); err != nil {
			t.Fatal(err)
		}
		s := hs[i].State + " " + d.BGP + " " + d.Prefix
		if d.Reason != "" {
			s += " (" + d.Reason + ")"
		}
		out = append(out, s)
	}
	return out
}

func (m *mitEnv) auditTrail() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.audits)
}

const floodRule = "traffic BY server.ip, protocol, server.port HAVING traffic > 50000 SINCE @now-60"

func bgpNotify(t *testing.T, kinds ...string) json.RawMessage {
	var cs []alerts.Channel
	for _, k := range kinds {
		cs = append(cs, alerts.Channel{BGP: k})
	}
	return notify(t, cs...)
}

func check(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s:\n%s\nwant:\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestMitigationAnnounceResolve checks a flood's blackhole route and flowspec rule: announced
// when its alert fires, held while the alert resolves sooner than the hold-down, then
// withdrawn; each step in the history and the audit trail.
func TestMitigationAnnounceResolve(t *testing.T) {
	t.Parallel()
	m := newMitEnv(t, alerts.Options{MitigationHold: 2 * time.Minute})
	t0 := time.Now().Truncate(time.Hour).Add(-2 * time.Hour)
	r := m.rule(t, state.AlertRule{Name: "flood", Owner: "admin", Query: floodRule, Notify: bgpNotify(t, alerts.Blackhole, alerts.Flowspec)})
	m.flood(t, t0.Unix()-1, "198.51.100.7")
	m.tick(t, t0)
	check(t, "calls after the flood", m.ann.took(), "announce blackhole 198.51.100.7/32 via 192.0.2.1",
		"announce flowspec 198.51.100.7/32 proto 17 port 53")
	m.tick(t, t0.Add(10*time.Second))
	check(t, "calls while it fires", m.ann.took())
	m.tick(t, t0.Add(70*time.Second)) // resolved: the records left the window, but held
	check(t, "calls while held", m.ann.took())
	m.tick(t, t0.Add(2*time.Minute))
	check(t, "calls after the hold-down", m.ann.took(), "withdraw blackhole 198.51.100.7/32 via 192.0.2.1",
		"withdraw flowspec 198.51.100.7/32 proto 17 port 53")
	check(t, "history", m.events(t, r.ID), "announced blackhole 198.51.100.7/32", "announced flowspec 198.51.100.7/32",
		"withdrawn blackhole 198.51.100.7/32 (resolved)", "withdrawn flowspec 198.51.100.7/32 (resolved)")
	audit := m.auditTrail()
	if len(audit) != 4 || !strings.HasPrefix(audit[0], "bgp-announce admin ") || !strings.HasPrefix(audit[3], "bgp-withdraw admin ") ||
		!strings.Contains(audit[0], `"prefix":"198.51.100.7/32"`) || !strings.Contains(audit[0], r.ID) {
		t.Fatalf("audit trail:\n%s", strings.Join(audit, "\n"))
	}
}

// TestMitigationZones checks that an address outside mitigation_zones is never announced,
// its refusal recorded once while it fires, and that nothing is announced before an
// administrator names zones.
func TestMitigationZones(t *testing.T) {
	t.Parallel()
	m := newMitEnv(t, alerts.Options{})
	t0 := time.Now().Truncate(time.Hour).Add(-2 * time.Hour)
	r := m.rule(t, state.AlertRule{Name: "flood", Owner: "admin", Query: floodRule, Notify: bgpNotify(t, alerts.Blackhole)})
	m.flood(t, t0.Unix()-1, "203.0.113.9") // Transit
	m.flood(t, t0.Unix()-1, "192.0.2.50")  // in no zone
	for i := range 3 {
		m.tick(t, t0.Add(time.Duration(i)*10*time.Second))
	}
	check(t, "calls", m.ann.took())
	check(t, "history", m.events(t, r.ID),
		"refused blackhole 192.0.2.50/32 (the address is outside mitigation_zones (its zone: other))",
		"refused blackhole 203.0.113.9/32 (the address is outside mitigation_zones (its zone: Transit))")

	m.mu.Lock()
	m.set.Zones = nil
	m.mu.Unlock()
	m.flood(t, t0.Unix()+29, "198.51.100.7")
	m.tick(t, t0.Add(30*time.Second))
	check(t, "calls without zones", m.ann.took())
	if got := m.events(t, r.ID); !strings.Contains(got[len(got)-1], "mitigation_zones names no zone") {
		t.Fatalf("history: %q", got)
	}
}

// TestMitigationBound checks the bound of routes announced at once: past it a route is
// refused (once), and announced once another is withdrawn.
func TestMitigationBound(t *testing.T) {
	t.Parallel()
	m := newMitEnv(t, alerts.Options{MaxMitigations: 2, MitigationHold: time.Second})
	t0 := time.Now().Truncate(time.Hour).Add(-2 * time.Hour)
	r := m.rule(t, state.AlertRule{Name: "flood", Owner: "admin", Query: floodRule, Notify: bgpNotify(t, alerts.Blackhole)})
	m.flood(t, t0.Unix()-1, "198.51.100.1")
	m.tick(t, t0)
	m.flood(t, t0.Unix()+9, "198.51.100.2")
	m.flood(t, t0.Unix()+9, "198.51.100.3")
	m.tick(t, t0.Add(10*time.Second))
	m.tick(t, t0.Add(20*time.Second))
	check(t, "calls", m.ann.took(), "announce blackhole 198.51.100.1/32 via 192.0.2.1", "announce blackhole 198.51.100.2/32 via 192.0.2.1")
	m.tick(t, t0.Add(60*time.Second)) // 198.51.100.1's records left the window
	check(t, "calls once one resolved", m.ann.took(), "withdraw blackhole 198.51.100.1/32 via 192.0.2.1",
		"announce blackhole 198.51.100.3/32 via 192.0.2.1")
	check(t, "history", m.events(t, r.ID), "announced blackhole 198.51.100.1/32", "announced blackhole 198.51.100.2/32",
		"refused blackhole 198.51.100.3/32 (2 routes are announced already, the most at once)",
		"withdrawn blackhole 198.51.100.1/32 (resolved)", "announced blackhole 198.51.100.3/32")
}

// TestMitigationFlapping checks the hold-down's second half: a group firing again soon
// after its route was withdrawn waits out the delay before it is announced again.
func TestMitigationFlapping(t *testing.T) {
	t.Parallel()
	m := newMitEnv(t, alerts.Options{MitigationHold: time.Second, MitigationDelay: time.Minute})
	t0 := time.Now().Truncate(time.Hour).Add(-2 * time.Hour)
	m.rule(t, state.AlertRule{Name: "flood", Owner: "admin", Query: floodRule, Notify: bgpNotify(t, alerts.Blackhole)})
	m.flood(t, t0.Unix()-1, "198.51.100.7")
	m.tick(t, t0)
	m.tick(t, t0.Add(60*time.Second)) // resolved: withdrawn at t0+60
	m.flood(t, t0.Unix()+69, "198.51.100.7")
	m.tick(t, t0.Add(70*time.Second)) // fires again: waits
	m.tick(t, t0.Add(110*time.Second))
	check(t, "calls within the delay", m.ann.took(), "announce blackhole 198.51.100.7/32 via 192.0.2.1",
		"withdraw blackhole 198.51.100.7/32 via 192.0.2.1")
	m.flood(t, t0.Unix()+119, "198.51.100.7")
	m.tick(t, t0.Add(120*time.Second))
	check(t, "calls after the delay", m.ann.took(), "announce blackhole 198.51.100.7/32 via 192.0.2.1")
}

// TestMitigationWithdrawnAtOnce checks that silencing a group, changing the rule or
// deleting it withdraws its routes at once, whatever the hold-down.
func TestMitigationWithdrawnAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, c := range []struct {
		name, reason string
		do           func(m *mitEnv, r state.AlertRule) error
	}{
		{"silenced", "silenced", func(m *mitEnv, r state.AlertRule) error {
			return m.st.Silence(ctx, r.ID, `["198.51.100.7","udp",53]`, time.Now().Add(time.Hour))
		}},
		{"query changed", "the rule was changed", func(m *mitEnv, r state.AlertRule) error {
			_, err := m.st.UpdateRule(ctx, r.ID, func(r *state.AlertRule) error {
				r.Query = strings.Replace(floodRule, "50000", "60000", 1)
				return nil
			})
			return err
		}},
		{"channel removed", "the rule was changed", func(m *mitEnv, r state.AlertRule) error {
			_, err := m.st.UpdateRule(ctx, r.ID, func(r *state.AlertRule) error {
				r.Notify = json.RawMessage("[]")
				return nil
			})
			return err
		}},
		{"deleted", "the rule was deleted", func(m *mitEnv, r state.AlertRule) error { return m.st.DeleteRule(ctx, r.ID) }},
		{"zones changed", "the address is outside mitigation_zones (its zone: Customers/ACME)", func(m *mitEnv, _ state.AlertRule) error {
			m.mu.Lock()
			defer m.mu.Unlock()
			m.set.Zones = []string{"Transit"}
			return nil
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := newMitEnv(t, alerts.Options{MitigationHold: time.Hour})
			t0 := time.Now().Truncate(time.Hour).Add(-2 * time.Hour)
			r := m.rule(t, state.AlertRule{Name: "flood", Owner: "admin", Query: floodRule, Notify: bgpNotify(t, alerts.Blackhole)})
			m.flood(t, t0.Unix()-1, "198.51.100.7")
			m.tick(t, t0)
			if err := c.do(m, r); err != nil {
				t.Fatal(err)
			}
			m.tick(t, t0.Add(10*time.Second))
			m.tick(t, t0.Add(20*time.Second))
			check(t, "calls", m.ann.took(), "announce blackhole 198.51.100.7/32 via 192.0.2.1",
				"withdraw blackhole 198.51.100.7/32 via 192.0.2.1")
			check(t, "history", m.events(t, r.ID), "announced blackhole 198.51.100.7/32",
				"withdrawn blackhole 198.51.100.7/32 ("+c.reason+")")
		})
	}
}

// TestMitigationRestart checks that what is announced outlives the evaluator: a new one (the
// service started again, or another node holding the lease) announces again what still fires,
// without new events, and withdraws what resolved meanwhile once held long enough.
func TestMitigationRestart(t *testing.T) {
	t.Parallel()
	m := newMitEnv(t, alerts.Options{MitigationHold: 2 * time.Minute})
	t0 := time.Now().Truncate(time.Hour).Add(-2 * time.Hour)
	r := m.rule(t, state.AlertRule{Name: "flood", Owner: "admin", Query: floodRule, Notify: bgpNotify(t, alerts.Blackhole)})
	m.flood(t, t0.Unix()+100, "198.51.100.8")
	m.tick(t, t0.Add(101*time.Second))
	m.ann.took()
	m.ev.Close() // stopped: what it announced is withdrawn from its speaker
	check(t, "calls when stopped", m.ann.took(), "withdraw blackhole 198.51.100.8/32 via 192.0.2.1")

	// Started again, with a speaker of its own; 198.51.100.8's records are still in the window.
	after := &announcer{routes: map[string]bool{}}
	_, ev := m.another(t, func(o *alerts.Options) { o.Announcer = after })
	if err := ev.Tick(context.Background(), t0.Add(110*time.Second)); err != nil {
		t.Fatal(err)
	}
	check(t, "calls after the restart", after.took(), "announce blackhole 198.51.100.8/32 via 192.0.2.1")
	if err := ev.Tick(context.Background(), t0.Add(230*time.Second)); err != nil { // resolved, held 2 min
		t.Fatal(err)
	}
	check(t, "calls once it resolved", after.took(), "withdraw blackhole 198.51.100.8/32 via 192.0.2.1")
	check(t, "history", m.events(t, r.ID), "announced blackhole 198.51.100.8/32", "withdrawn blackhole 198.51.100.8/32 (resolved)")
}

// TestIntervalKept checks that a rule is evaluated at the look it is due at, even one a hair
// early: Run looks every second, each a little early or late, and a 10 s rule evaluated every
// 11 s would detect a flood a second later.
func TestIntervalKept(t *testing.T) {
	t.Parallel()
	e := newEnv(t, alerts.Options{})
	ctx := context.Background()
	t0 := time.Now().Truncate(time.Hour).Add(-2 * time.Hour)
	r := e.rule(t, state.AlertRule{Name: "busy", Query: "traffic BY server.ip HAVING traffic > 1000 SINCE @now-60"})
	e.tick(t, t0)
	e.traffic(t, t0.Unix(), "10.0.0.2", 5000)
	e.tick(t, t0.Add(10*time.Second-time.Millisecond))
	if ins, _ := e.st.Instances(ctx, r.ID); len(ins) != 1 || ins[0].State != alerts.Firing {
		t.Fatalf("10 s after its last evaluation, less a millisecond: %+v, want 10.0.0.2 firing", ins)
	}
}

// TestMitigationOnArrival checks that a rule with a bgp channel is evaluated at the look after
// a flood's records are stored, whatever its interval, so that its route is announced within
// a second or two; a rule without one keeps its interval.
func TestMitigationOnArrival(t *testing.T) {
	t.Parallel()
	m := newMitEnvOn(t, alerts.Options{}, true)
	ctx := context.Background()
	t0 := time.Now().Truncate(time.Hour).Add(-2 * time.Hour)
	r := m.rule(t, state.AlertRule{Name: "flood", Owner: "admin", Query: floodRule, Notify: bgpNotify(t, alerts.Blackhole)})
	plain := m.rule(t, state.AlertRule{Name: "plain", Owner: "admin", Query: floodRule})
	m.tick(t, t0)
	m.flood(t, t0.Unix(), "198.51.100.7")
	m.tick(t, t0.Add(time.Second))
	check(t, "calls a second after the flood", m.ann.took(), "announce blackhole 198.51.100.7/32 via 192.0.2.1")
	if ins, _ := m.st.Instances(ctx, plain.ID); len(ins) != 0 {
		t.Fatalf("the rule without a bgp channel was evaluated before its interval: %+v", ins)
	}
	check(t, "history", m.events(t, r.ID), "announced blackhole 198.51.100.7/32")
}

// TestMitigationWithoutSpeaker checks a rule with a bgp channel (stored through a node with
// -bgp) evaluated by a node without one: its alert fires and each firing group's route is
// refused, naming -bgp, once while it fires; the rule's warning says so in list-alert-rules,
// and the log once.
func TestMitigationWithoutSpeaker(t *testing.T) {
	t.Parallel()
	m := newMitEnv(t, alerts.Options{})
	t0 := time.Now().Truncate(time.Hour).Add(-2 * time.Hour)
	r := m.rule(t, state.AlertRule{Name: "flood", Owner: "admin", Query: floodRule, Notify: bgpNotify(t, alerts.Blackhole)})
	core, logs := observer.New(zap.WarnLevel)
	svc, ev := m.another(t, func(o *alerts.Options) { o.Announcer, o.Logger = nil, zap.New(core) })
	m.flood(t, t0.Unix()-1, "198.51.100.7")
	for i := range 3 {
		if err := ev.Tick(context.Background(), t0.Add(time.Duration(i)*10*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	check(t, "calls", m.ann.took())
	check(t, "states", m.states(t, r.ID), `firing ["198.51.100.7","udp",53] [100000]`, `refused ["198.51.100.7","udp",53] [100000]`)
	check(t, "history", m.events(t, r.ID),
		"refused blackhole 198.51.100.7/32 (the node evaluating the rules runs without -bgp: its bgp channels announce nothing)")
	rules, err := alerts.ListRules(svc, context.Background())
	if err != nil || len(rules) != 1 || !strings.Contains(rules[0].Warning, "without -bgp") || rules[0].Error != "" {
		t.Fatalf("list-alert-rules: %+v, %v; want the rule's warning naming -bgp", rules, err)
	}
	if n := logs.FilterMessageSnippet("without -bgp").FilterField(zap.String("rule", r.ID)).Len(); n != 1 {
		t.Errorf("%d warnings in the log, want one: %v", n, logs.All())
	}
}
