package alerts

import (
	"cmp"
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/netctx"
	"github.com/fnapi/fnapi/examples/dataservice/pvql"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/state/statedb"
	"github.com/fnapi/fnapi/examples/dataservice/wire"
	"github.com/fnapi/fnapi/label"
	"github.com/fnapi/fnapi/registry"
	"go.uber.org/zap"
)

// Options configure a Service. Query is required; every other field has a default.
type Options struct {
	// Query answers a rule's query as the query function does, with @now standing for now.
	Query func(ctx context.Context, expr string, now time.Time) ([]pvql.Result, error)
	// Live, when set, makes a standing answer of a query that re-reads only the records that
	// arrived or changed since its last answer (pvql.Engine.Live over the store's changes):
	// each distinct rule query of each owner keeps one. Default: every evaluation answers with
	// Query.
	//
	// Query, Each and Live are called with the owner of the rules in ctx (Owner): what their
	// answers keep between evaluations counts against that owner's share (package app).
	Live func(ctx context.Context, expr string) (Standing, error)
	// Each, when set, answers rule queries of one family (pvql.Statement.Family: the same
	// query but for its HAVING, as rules differing only in thresholds are, and for the literal
	// of one `k = literal` term of its WHERE, as rules watching one server each are) with one
	// read of the store, a result per expression in order (pvql.Engine.AnswerEach). Default:
	// each distinct query answers alone.
	Each func(ctx context.Context, exprs []string, now time.Time) ([]pvql.Result, error)
	// WebhookAllow lists the prefixes webhooks may reach besides public addresses.
	WebhookAllow []netip.Prefix
	// Listen lists the service's own listening addresses (HTTPS, metrics): webhooks never
	// reach them, whatever WebhookAllow holds (Guard.Listen).
	Listen []netip.AddrPort
	// WebhookRoots verifies webhook receivers' certificates. Default: the system's roots.
	WebhookRoots *x509.CertPool
	// SMTP is where e-mail goes. Default: none (e-mail channels fail, and say so).
	SMTP *SMTP
	// RulesPerUser bounds the rules one user holds. Default: 100.
	RulesPerUser int
	// Backoff is the wait after a first failed delivery, doubled after each. Default: 5 s.
	Backoff time.Duration
	// Attempts is the most attempts of one delivery before it is given up. Default: 12
	// (about 3 hours with the default back-off).
	Attempts int
	// Logger receives failures. Default: none.
	Logger *zap.Logger

	// Announcer announces the routes of rules' bgp channels (mitigator.go). Default: nil,
	// BGP off: a bgp channel is refused (INVALID-ARGUMENT) and nothing is announced.
	Announcer Announcer
	// Mitigation returns mitigation_zones and blackhole_nexthop as they are now. Default:
	// none, so nothing is announced.
	Mitigation func() MitigationSettings
	// Zones returns the zones that addresses are in (the inlet's). Default: none, so
	// nothing is announced.
	Zones func() *netctx.Zones
	// Audit writes an announcement or a withdrawal to the audit trail. Default: none.
	Audit func(ctx context.Context, e state.AuditEvent) error
	// MaxTransitions bounds the transitions one evaluation of a rule makes, and
	// MaxHourlyTransitions those of one owner's rules in an hour; the others wait for the
	// next evaluations. Default: DefaultMaxTransitions, DefaultMaxHourlyTransitions.
	MaxTransitions, MaxHourlyTransitions int
	// MaxWaiting bounds the notifications of one owner's rules waiting to be sent; a
	// transition past it notifies no one, which its channels show. Default: DefaultMaxWaiting.
	MaxWaiting int
	// MaxMitigations bounds the routes announced at once. Default: DefaultMaxMitigations.
	MaxMitigations int
	// MitigationHold is the least time a route stays announced. Default:
	// DefaultMitigationHold.
	MitigationHold time.Duration
	// MitigationDelay is how long a withdrawn route waits before it is announced again.
	// Default: DefaultMitigationDelay.
	MitigationDelay time.Duration
	// Changes reports the records stored (records.ChangeReporter): a rule with a bgp channel
	// is then evaluated at each look after records arrived, besides its interval, so that a
	// flood's route is announced a second or two after its records are stored. Use it with
	// Live, whose answers re-read only what changed. Default: nil, rules keep their interval.
	Changes *records.Changes
}

// Standing is a query answered again and again, each time reading only what changed
// (*pvql.Live).
type Standing interface {
	Answer(ctx context.Context, now time.Time) ([]pvql.Result, error)
	Close()
}

// Service holds the alert rules and serves the alert functions.
type Service struct {
	store  *statedb.Alerts
	opts   Options
	log    *zap.Logger
	guard  *Guard
	client *http.Client
	smtp   *SMTP
	wake   chan struct{}
	sender *sender

	evaluations atomic.Int64 // queries run by evaluators, for tests and benchmarks

	mu     sync.Mutex
	status map[string]state.AlertStatus // by rule, those of the round, until flush writes them
}

// New returns the service of the alert rules kept in st.
func New(st *statedb.Alerts, o Options) (*Service, error) {
	if st == nil || o.Query == nil {
		return nil, errors.New("alerts: New needs a store and a query function")
	}
	if o.RulesPerUser <= 0 {
		o.RulesPerUser = 100
	}
	if o.Backoff <= 0 {
		o.Backoff = 5 * time.Second
	}
	if o.Attempts <= 0 {
		o.Attempts = 12
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	if o.MaxTransitions <= 0 {
		o.MaxTransitions = DefaultMaxTransitions
	}
	if o.MaxHourlyTransitions <= 0 {
		o.MaxHourlyTransitions = DefaultMaxHourlyTransitions
	}
	if o.MaxWaiting <= 0 {
		o.MaxWaiting = DefaultMaxWaiting
	}
	if o.MaxMitigations <= 0 {
		o.MaxMitigations = DefaultMaxMitigations
	}
	if o.MitigationHold <= 0 {
		o.MitigationHold = DefaultMitigationHold
	}
	if o.MitigationDelay <= 0 {
		o.MitigationDelay = DefaultMitigationDelay
	}
	g := NewGuard(o.WebhookAllow, o.Listen...)
	s := &Service{store: st, opts: o, log: o.Logger, guard: g, client: newWebhookClient(g, o.WebhookRoots),
		smtp: o.SMTP, wake: make(chan struct{}, 1), status: map[string]state.AlertStatus{}}
	s.sender = newSender(s)
	return s, nil
}

// Evaluations returns how many rule queries the evaluators of s ran.
func (s *Service) Evaluations() int64 { return s.evaluations.Load() }

// Register adds the alert functions (API 1.3) to reg: users and administrators manage rules,
// read-only users see them.
func (s *Service) Register(reg *registry.Registry) error {
	reader, user := registry.Requires(authapi.RoleReadOnly), registry.Requires(authapi.RoleUser)
	listRules := func(ctx context.Context, _ decl.None) ([]api.AlertRule, error) { return s.listRules(ctx) }
	for _, err := range []error{
		registry.Implement(reg, api.ListAlertRules, listRules, reader, registry.ReadOnly()),
		registry.Implement(reg, api.CreateAlertRule, s.createRule, user),
		registry.Implement(reg, api.UpdateAlertRule, s.updateRule, user),
		registry.Implement(reg, api.DeleteAlertRule, s.deleteRule, user),
		registry.Implement(reg, api.ListAlerts, s.listAlerts, reader, registry.ReadOnly()),
		registry.Implement(reg, api.AlertHistory, s.history, reader, registry.ReadOnly()),
		registry.Implement(reg, api.SilenceAlert, s.silence, user),
		registry.Implement(reg, api.AcknowledgeAlert, s.acknowledge, user),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) listRules(ctx context.Context) ([]api.AlertRule, error) {
	rs, err := s.store.Rules(ctx)
	if err != nil {
		return nil, wire.StoreError(err)
	}
	st, err := s.store.Channels(ctx)
	if err != nil {
		return nil, wire.StoreError(err)
	}
	sts, err := s.store.Statuses(ctx)
	if err != nil {
		return nil, wire.StoreError(err)
	}
	out := make([]api.AlertRule, 0, len(rs))
	for _, r := range rs {
		out = append(out, withEvaluation(ruleOut(r, st, mayChange(ctx, r)), sts))
	}
	return out, nil
}

func (s *Service) createRule(ctx context.Context, in api.CreateAlertRuleArgs) (api.AlertRule, error) {
	r := state.AlertRule{Name: in.Name, Query: in.Query, Severity: in.Severity, Labels: in.Labels, Owner: caller(ctx)}
	if r.Severity == "" {
		r.Severity = "warning"
	}
	var err error
	if r.Interval, err = duration("interval", in.Interval, DefaultInterval, MinInterval, MaxInterval); err != nil {
		return api.AlertRule{}, err
	}
	if r.For, err = duration("for", in.For, 0, 0, MaxFor); err != nil {
		return api.AlertRule{}, err
	}
	if err := s.check(ctx, &r, in.Notify, nil); err != nil {
		return api.AlertRule{}, err
	}
	r, err = s.store.CreateRule(ctx, r, s.opts.RulesPerUser)
	if err != nil {
		return api.AlertRule{}, wire.StoreError(err)
	}
	return ruleOut(r, nil, true), nil
}

// check validates r (name, severity, labels, query) and sets its channels from notify. Names,
// severities and labels are checked as other names are (label.Check: one line, no control or
// bidirectional formatting characters); a label's value may be empty.
func (s *Service) check(ctx context.Context, r *state.AlertRule, notify []api.AlertChannel, old []Channel) error {
	if r.Name == "" || len(r.Name) > 200 {
		return invalid("name", "must have 1 to 200 characters")
	}
	if reason := label.Check(r.Name); reason != "" {
		return invalid("name", reason)
	}
	if len(r.Severity) > 40 {
		return invalid("severity", "at most 40 characters")
	}
	if reason := label.Check(r.Severity); reason != "" {
		return invalid("severity", reason)
	}
	if len(r.Labels) > maxLabels {
		return invalid("labels", "at most 20 labels")
	}
	for k, v := range r.Labels {
		if k == "" || len(k) > 100 || len(v) > 1000 {
			return invalid("labels", "names of 1 to 100 characters, values of at most 1000")
		}
		if reason := label.Check(k); reason != "" {
			return invalid("labels", "the name "+strconv.Quote(k)+" "+reason)
		}
		if reason := label.Check(v); v != "" && reason != "" {
			return invalid("labels", "the value of "+strconv.Quote(k)+" "+reason)
		}
	}
	if len(r.Query) > 10_000 {
		return invalid("query", "at most 10000 characters")
	}
	if err := checkQuery(r.Query); err != nil {
		return err
	}
	cs, err := s.checkChannels(ctx, r.Query, notify, old)
	if err != nil {
		return err
	}
	r.Notify, _ = json.Marshal(cs)
	return nil
}

// updateRule changes a rule: its owner's or, for an administrator, anyone's.
func (s *Service) updateRule(ctx context.Context, in api.UpdateAlertRuleArgs) (api.AlertRule, error) {
	r, err := s.store.UpdateRule(ctx, in.ID, func(r *state.AlertRule) error {
		if !mayChange(ctx, *r) {
			return denied(ctx)
		}
		old := channels(*r)
		if hasBGP(old) && !isAdmin(ctx) {
			return denied(ctx) // its routes are the administrators' to change
		}
		notify := make([]api.AlertChannel, len(old))
		for i, c := range old {
			notify[i] = api.AlertChannel{Webhook: c.Webhook, Secret: c.Secret, Email: c.Email, BGP: c.BGP}
		}
		if in.Notify != nil {
			notify = in.Notify
		}
		if in.Name != nil {
			r.Name = *in.Name
		}
		if in.Query != nil {
			r.Query = *in.Query
		}
		if in.Severity != nil {
			r.Severity = cmp.Or(*in.Severity, "warning")
		}
		if in.Labels != nil {
			r.Labels = in.Labels
		}
		var err error
		if in.Interval != nil {
			if r.Interval, err = duration("interval", *in.Interval, DefaultInterval, MinInterval, MaxInterval); err != nil {
				return err
			}
		}
		if in.For != nil {
			if r.For, err = duration("for", *in.For, 0, 0, MaxFor); err != nil {
				return err
			}
		}
		return s.check(ctx, r, notify, old)
	})
	if err != nil {
		return api.AlertRule{}, wire.StoreError(err)
	}
	return ruleOut(r, nil, true), nil
}

// deleteRule deletes a rule: its owner's or, for an administrator, anyone's.
func (s *Service) deleteRule(ctx context.Context, in api.IDArgs) (bool, error) {
	if err := s.owned(ctx, in.ID); err != nil {
		return false, err
	}
	if err := s.store.DeleteRule(ctx, in.ID); err != nil {
		return false, wire.StoreError(err)
	}
	return true, nil
}

func (s *Service) listAlerts(ctx context.Context, in api.ListAlertsArgs) ([]api.Alert, error) {
	if in.State != "" && in.State != Pending && in.State != Firing {
		return nil, invalid("state", "must be pending or firing")
	}
	ins, err := s.store.Instances(ctx, "")
	if err != nil {
		return nil, wire.StoreError(err)
	}
	rs, err := s.store.Rules(ctx)
	if err != nil {
		return nil, wire.StoreError(err)
	}
	byID := map[string]state.AlertRule{}
	for _, r := range rs {
		byID[r.ID] = r
	}
	out := []api.Alert{}
	for _, in2 := range ins {
		if in.State != "" && in2.State != in.State {
			continue
		}
		r := byID[in2.Rule]
		out = append(out, api.Alert{Rule: in2.Rule, Name: r.Name, Severity: r.Severity, Group: json.RawMessage(in2.Group),
			State: in2.State, Since: in2.Since, Values: in2.Values, Acknowledged: in2.Acked})
	}
	return out, nil
}

func (s *Service) history(ctx context.Context, in api.AlertHistoryArgs) ([]api.AlertEvent, error) {
	es, err := s.store.History(ctx, state.AlertQuery{Rule: in.Rule, Labels: in.Labels, Since: in.Since, Until: in.Until})
	if err != nil {
		return nil, wire.StoreError(err)
	}
	out := make([]api.AlertEvent, 0, len(es))
	for _, e := range es {
		ae := api.AlertEvent{ID: e.ID, Rule: e.Rule, Group: json.RawMessage(e.Group), State: e.State,
			Values: e.Values, At: e.At}
		if len(e.Detail) > 0 {
			ae.Mitigation = &api.AlertMitigation{}
			if json.Unmarshal(e.Detail, ae.Mitigation) != nil {
				ae.Mitigation = nil
			}
		}
		out = append(out, ae)
	}
	return out, nil
}

// silence silences a rule or one group of it: its owner's or, for an administrator, anyone's.
func (s *Service) silence(ctx context.Context, in api.SilenceAlertArgs) (bool, error) {
	if err := s.owned(ctx, in.Rule); err != nil {
		return false, err
	}
	g, ok := canonicalGroup(in.Group)
	if !ok {
		return false, invalid("group", "must be an array of the group's keys, as list-alerts answers it")
	}
	if in.Until.IsZero() {
		return false, invalid("until", "required: when notifications resume")
	}
	if err := s.store.Silence(ctx, in.Rule, g, in.Until); err != nil {
		return false, wire.StoreError(err)
	}
	return true, nil
}

func (s *Service) acknowledge(ctx context.Context, in api.AcknowledgeAlertArgs) (bool, error) {
	g, ok := canonicalGroup(in.Group)
	if !ok || g == "" {
		return false, invalid("group", "must be an array of the group's keys, as list-alerts answers it")
	}
	if err := s.store.Acknowledge(ctx, in.Rule, g); err != nil {
		return false, wire.StoreError(err)
	}
	return true, nil
}

// caller is the user a call's rules count against, and who owns the rules it creates.
func caller(ctx context.Context) string {
	if id := auth.FromContext(ctx); id != nil {
		return id.User
	}
	return ""
}
