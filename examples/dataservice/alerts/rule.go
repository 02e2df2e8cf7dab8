package alerts

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/mail"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/pvql"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/state/statedb"
	"github.com/fnapi/fnapi/examples/dataservice/wire"
)

// Channel is one destination of a rule's notifications, as stored (secret included).
type Channel struct {
	Webhook string `json:"webhook,omitempty"`
	Secret  string `json:"secret,omitempty"`
	Email   string `json:"email,omitempty"`
	// BGP is a mitigation: "blackhole" or "flowspec" (mitigation.go).
	BGP string `json:"bgp,omitempty"`
}

// Bounds of a rule.
const (
	// MinInterval and MaxInterval bound a rule's evaluation interval; DefaultInterval is
	// the interval of a rule that gives none.
	MinInterval, DefaultInterval, MaxInterval = 10 * time.Second, time.Minute, 24 * time.Hour
	// MaxFor bounds how long a condition must hold before it fires.
	MaxFor = 7 * 24 * time.Hour
	// maxLabels bounds a rule's labels; maxChannels its channels.
	maxLabels, maxChannels = 20, 10
)

func invalid(name, reason string) error {
	return apierr.New(apierr.InvalidArgument, "name", name, "reason", reason)
}

// checkQuery parses a rule's query: one statement with a HAVING, not grouped by time.
func checkQuery(q string) error {
	stmts, err := pvql.Parse(q)
	if err != nil {
		var se *pvql.SyntaxError
		if errors.As(err, &se) {
			return apierr.New(api.QuerySyntax, "position", se.Position, "expected", se.Expected, "message", se.Message)
		}
		return invalid("query", err.Error())
	}
	switch {
	case len(stmts) != 1:
		return invalid("query", "must be one statement")
	case !stmts[0].Condition():
		return invalid("query", "must have a HAVING clause: the condition (for example traffic BY server.ip HAVING traffic > 1e9)")
	case stmts[0].TimeKeyed():
		return invalid("query", "cannot be grouped BY time(N): each group is an alert of its own")
	}
	return nil
}

// duration parses a rule's interval or for; "" is def.
func duration(name, s string, def, lo, hi time.Duration) (time.Duration, error) {
	if s == "" {
		return def, nil
	}
	d, err := wire.ParseDuration(s)
	if err != nil {
		return 0, invalid(name, err.Error())
	}
	if d < lo || d > hi {
		return 0, invalid(name, "must be between "+wire.FormatDuration(lo)+" and "+wire.FormatDuration(hi))
	}
	return d, nil
}

// checkChannels validates notify of a rule with query; old are the rule's channels before,
// whose secrets a webhook given again without one keeps.
func (s *Service) checkChannels(ctx context.Context, query string, in []api.AlertChannel, old []Channel) ([]Channel, error) {
	if len(in) > maxChannels {
		return nil, invalid("notify", "at most 10 channels")
	}
	out := make([]Channel, 0, len(in))
	var kinds []string
	for _, c := range in {
		switch {
		case countSet(c.Webhook, c.Email, c.BGP) != 1:
			return nil, invalid("notify", `each channel is either {"webhook": "https://...", "secret": "..."}, {"email": "a@b"} or {"bgp": "blackhole" or "flowspec"}`)
		case c.BGP != "":
			kinds = append(kinds, c.BGP)
			out = append(out, Channel{BGP: c.BGP})
		case c.Email != "":
			a, err := mail.ParseAddress(c.Email)
			if err != nil || a.Address != c.Email || a.Name != "" {
				return nil, invalid("notify", "not an e-mail address: "+c.Email)
			}
			out = append(out, Channel{Email: c.Email})
		default:
			if err := s.checkWebhook(ctx, c.Webhook); err != nil {
				return nil, err
			}
			ch := Channel{Webhook: c.Webhook, Secret: c.Secret}
			for _, o := range old {
				if ch.Secret == "" && o.Webhook == ch.Webhook {
					ch.Secret = o.Secret
				}
			}
			out = append(out, ch)
		}
	}
	if err := s.checkBGP(ctx, query, kinds); err != nil {
		return nil, err
	}
	return out, nil
}

// countSet counts the strings that are not empty.
func countSet(ss ...string) int {
	n := 0
	for _, s := range ss {
		if s != "" {
			n++
		}
	}
	return n
}

// checkWebhook refuses a URL that is not HTTPS, or whose host is (or resolves to) an address
// the guard refuses: the service itself, loopback, private networks. The address dialled is
// checked again at each delivery, since DNS may answer otherwise later.
func (s *Service) checkWebhook(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil {
		return invalid("notify", "a webhook must be an https:// URL without user information")
	}
	host := u.Hostname()
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = append(addrs, a)
	} else if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		addrs = append(addrs, netip.IPv6Loopback())
	} else {
		rctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		ips, _ := net.DefaultResolver.LookupNetIP(rctx, "ip", host) // unresolved now: checked when dialled
		cancel()
		addrs = append(addrs, ips...)
	}
	for _, a := range addrs {
		if !s.guard.allowedAt(a, u.Port()) {
			return invalid("notify", "the webhook "+host+" is not a public address (the service itself, loopback or a private network); see -webhook-allow")
		}
	}
	return nil
}

// channels decodes a stored rule's channels.
func channels(r state.AlertRule) []Channel {
	var cs []Channel
	_ = json.Unmarshal(r.Notify, &cs)
	return cs
}

// ruleOut renders a stored rule as answered, without secrets; full shows its webhook URLs
// (to a caller who may change it), else they are redacted, in the channels' state too.
func ruleOut(r state.AlertRule, status []statedb.ChannelStatus, full bool) api.AlertRule {
	out := api.AlertRule{ID: r.ID, Name: r.Name, Query: r.Query, Interval: wire.FormatDuration(r.Interval),
		For: wire.FormatDuration(r.For), Severity: r.Severity, Labels: r.Labels, Notify: []api.AlertChannel{},
		Channels: []api.AlertChannelState{}, Owner: r.Owner, Created: r.Created, Updated: r.Updated}
	if out.Labels == nil {
		out.Labels = map[string]string{}
	}
	for _, c := range channels(r) {
		if c.Webhook != "" && !full {
			c.Webhook = redact(c.Webhook)
		}
		out.Notify = append(out.Notify, api.AlertChannel{Webhook: c.Webhook, Email: c.Email, BGP: c.BGP})
	}
	for _, st := range status {
		if st.Rule != r.ID {
			continue
		}
		target, text := st.Target, st.Error
		if !full && !strings.HasPrefix(target, mailto) {
			target, text = redact(target), redactError(text, target)
		}
		out.Channels = append(out.Channels, api.AlertChannelState{Target: target,
			OK: st.Error == "", Attempts: st.Attempts, Error: text})
	}
	return out
}
