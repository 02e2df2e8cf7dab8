package alerts

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/examples/dataservice/bgp"
	"github.com/fnapi/fnapi/examples/dataservice/pvql"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/state"
)

// Announcer announces and withdraws the routes that stop floods: the service's BGP speaker
// (*bgp.Speaker, -bgp). Announce of a route already announced, and Withdraw of one that is
// not, are no errors.
type Announcer interface {
	Announce(ctx context.Context, m bgp.Mitigation) error
	Withdraw(ctx context.Context, m bgp.Mitigation) error
}

// MitigationSettings are the configuration keys that decide what may be announced.
type MitigationSettings struct {
	// Zones are mitigation_zones: the zones (and those nested in them) whose addresses may
	// be announced. None: nothing is announced.
	Zones []string
	// NextHops are blackhole_nexthop: the next hop of blackhole routes, one per family.
	NextHops []netip.Addr
}

// The kinds of a bgp channel.
const (
	Blackhole = "blackhole"
	Flowspec  = "flowspec"
)

// Bounds of mitigations (docs/security.md, "Limits"), the defaults of Options.
const (
	// DefaultMaxMitigations is the most routes announced at once, all rules together.
	DefaultMaxMitigations = 100
	// DefaultMitigationHold is the least time a route stays announced: an alert resolved
	// sooner is withdrawn when it is up.
	DefaultMitigationHold = 5 * time.Minute
	// DefaultMitigationDelay is how long after a route's withdrawal the same route waits
	// before it is announced again.
	DefaultMitigationDelay = time.Minute
)

// The states of the history's mitigation events.
const (
	Announced = "announced"
	Withdrawn = "withdrawn"
	Refused   = "refused"
)

// target is where a rule's groups put the address to protect, and the protocol and port of
// its flowspec rules: positions in the group's keys (-1: none), or values from its WHERE.
type target struct {
	addr, proto, port int
	protocol          uint8
	portNum           uint16
}

// targetOf reads a rule's query for its mitigations: it must group by server.ip or client.ip
// (server.ip when both); the protocol and the port (the address's side: server.port with
// server.ip) come from its keys, else from a `k = literal` term of its WHERE.
func targetOf(query string) (target, error) {
	stmts, err := pvql.Parse(query)
	if err != nil || len(stmts) != 1 {
		return target{}, errors.New("not one statement")
	}
	st := stmts[0]
	keys := st.Keys()
	t := target{addr: slices.Index(keys, "server.ip"), proto: slices.Index(keys, "protocol")}
	side := "server"
	if t.addr < 0 {
		t.addr, side = slices.Index(keys, "client.ip"), "client"
	}
	if t.addr < 0 {
		return target{}, errors.New(`a rule with a bgp channel must group BY server.ip or client.ip: each firing group's address is what is announced`)
	}
	t.port = slices.Index(keys, side+".port")
	if v, ok := st.Equal("protocol"); ok && t.proto < 0 {
		t.protocol, _ = protocolOf(v)
	}
	if v, ok := st.Equal(side + ".port"); ok && t.port < 0 {
		p, _ := v.(int64)
		t.portNum = uint16(p)
	}
	return t, nil
}

// mitigation returns the route of kind that protects a group (its keys as stored), next hops
// aside.
func (t target) mitigation(kind, group string) (bgp.Mitigation, error) {
	d := json.NewDecoder(strings.NewReader(group))
	d.UseNumber()
	var keys []any
	if err := d.Decode(&keys); err != nil || t.addr >= len(keys) || t.proto >= len(keys) || t.port >= len(keys) {
		return bgp.Mitigation{}, errors.New("the group's keys do not match the rule's query")
	}
	s, _ := keys[t.addr].(string)
	a, err := netip.ParseAddr(s)
	if err != nil {
		return bgp.Mitigation{}, fmt.Errorf("the group's address %v is not an IP address", keys[t.addr])
	}
	a = a.Unmap()
	m := bgp.Mitigation{Prefix: netip.PrefixFrom(a, a.BitLen()), Flowspec: kind == Flowspec}
	if !m.Flowspec {
		return m, nil
	}
	m.Protocol, m.Port = t.protocol, t.portNum
	if t.proto >= 0 {
		m.Protocol, _ = protocolOf(keys[t.proto])
	}
	if t.port >= 0 {
		n, _ := keys[t.port].(json.Number)
		p, _ := strconv.ParseUint(string(n), 10, 16)
		m.Port = uint16(p)
	}
	return m, nil
}

// protocolOf reads a protocol as results show it: a name ("udp") or a number.
func protocolOf(v any) (uint8, bool) {
	switch v := v.(type) {
	case string:
		p, err := records.ParseProtocol(v)
		return p, err == nil
	case int64:
		return uint8(v), v >= 0 && v < 256
	case json.Number:
		p, err := strconv.ParseUint(string(v), 10, 8)
		return uint8(p), err == nil
	}
	return 0, false
}

// noSpeaker is why a bgp channel announces nothing on a node without a speaker: the rule's
// warning, and the reason of each firing group's route, refused.
const noSpeaker = "the node evaluating the rules runs without -bgp: its bgp channels announce nothing"

// checkBGP validates the bgp channels of a rule with query: BGP on (Options.Announcer), a
// known kind, each once, a query that groups by an address, and an administrator calling.
func (s *Service) checkBGP(ctx context.Context, query string, kinds []string) error {
	if len(kinds) == 0 {
		return nil
	}
	if s.opts.Announcer == nil {
		return invalid("notify", "BGP is off: start the service with -bgp (and -bgp-peers) to announce routes")
	}
	for i, k := range kinds {
		if k != Blackhole && k != Flowspec {
			return invalid("notify", `bgp is "blackhole" or "flowspec", not `+strconv.Quote(k))
		}
		if slices.Contains(kinds[:i], k) {
			return invalid("notify", `{"bgp": "`+k+`"} listed twice`)
		}
	}
	if _, err := targetOf(query); err != nil {
		return invalid("notify", err.Error())
	}
	if !isAdmin(ctx) {
		return denied(ctx) // routers obey what is announced: administrators decide it
	}
	return nil
}

// isAdmin reports whether the caller of ctx is an administrator.
func isAdmin(ctx context.Context) bool {
	id := auth.FromContext(ctx)
	return id != nil && id.Role == authapi.RoleAdmin
}

// hasBGP reports whether cs holds a bgp channel.
func hasBGP(cs []Channel) bool {
	return slices.ContainsFunc(cs, func(c Channel) bool { return c.BGP != "" })
}

// mitigates reports whether r holds a bgp channel: at every look, for every rule, so the
// channels are decoded only when their JSON may hold one.
func mitigates(r state.AlertRule) bool {
	return bytes.Contains(r.Notify, []byte(`"bgp"`)) && hasBGP(channels(r))
}
