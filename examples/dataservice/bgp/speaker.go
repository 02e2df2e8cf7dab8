package bgp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/apiutil"
	gobgp "github.com/osrg/gobgp/v4/pkg/packet/bgp"
	"github.com/osrg/gobgp/v4/pkg/server"
)

// Speaker is the service's BGP speaker. Lookup, Announce, Withdraw and Status are safe for
// concurrent use once New returned.
type Speaker struct {
	cfg Config
	log *slog.Logger
	srv *server.BgpServer

	mu      sync.RWMutex // guards what follows: the learned routes
	routers map[netip.Addr]*router
	order   []*router // routers in the order they first connected, for Lookup's fallback
	attrs   *interned
	buf     []byte
	refused map[netip.Addr]bool

	amu       sync.Mutex // guards announced
	announced map[Mitigation]*apiutil.Path

	updates, refusals atomic.Uint64
	cancel            context.CancelFunc
	stopped           sync.Once
}

// router is what the speaker knows of one router: its session and the routes it sent.
type router struct {
	addr   netip.Addr
	as     uint32
	state  gobgp.FSMState
	since  time.Time
	v4, v6 *trie
	// stale4 and stale6 hold the routes of a session that ended while the router restarts
	// gracefully, until it sends End-of-RIB or restartTimer fires.
	stale4, stale6 *trie
	restartTimer   *time.Timer
	grTime         time.Duration // the router's restart time (0: it does not restart gracefully)
	gr4, gr6       bool          // the unicast families whose routes it keeps through a restart
	reset          bool          // the session is being reset for passing MaxPrefixes
}

func (r *router) routes() int {
	n := r.v4.routes + r.v6.routes
	for _, t := range []*trie{r.stale4, r.stale6} {
		if t != nil {
			n += t.routes
		}
	}
	return n
}

// New checks cfg and returns a Speaker; it listens from Start.
func New(cfg Config, log *slog.Logger) (*Speaker, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Speaker{cfg: cfg, log: log, routers: map[netip.Addr]*router{}, attrs: newInterned(),
		refused: map[netip.Addr]bool{}, announced: map[Mitigation]*apiutil.Path{}}, nil
}

// Start listens for routers' sessions until Stop.
func (s *Speaker) Start(ctx context.Context) error {
	host, p, _ := net.SplitHostPort(s.cfg.Listen) // checked by New
	port, _ := strconv.ParseUint(p, 10, 16)
	s.srv = server.NewBgpServer(server.LoggerOption(slog.New(&gobgpLog{s: s, next: s.log.Handler()}), nil))
	go s.srv.Serve()
	global := &api.Global{Asn: s.cfg.AS, RouterId: s.cfg.RouterID.String(), ListenPort: int32(port)}
	if host != "" {
		global.ListenAddresses = []string{host}
	}
	startMu.Lock()
	err := s.srv.StartBgp(ctx, &api.StartBgpRequest{Global: global})
	startMu.Unlock()
	if err != nil {
		s.srv.Stop()
		return fmt.Errorf("bgp: -bgp %s: %w", s.cfg.Listen, err)
	}
	// Received routes never enter GoBGP's RIB (so they are never re-advertised, and a full
	// table is not kept twice): the import policy accepts the service's own routes only; the
	// speaker's table is filled from the updates as they arrive (WatchUpdate, before the policy).
	err = s.srv.AddPolicy(ctx, &api.AddPolicyRequest{Policy: &api.Policy{Name: "own-routes-only",
		Statements: []*api.Statement{{Name: "own", Conditions: &api.Conditions{RouteType: api.Conditions_ROUTE_TYPE_LOCAL},
			Actions: &api.Actions{RouteAction: api.RouteAction_ROUTE_ACTION_ACCEPT}}}}})
	if err == nil {
		err = s.srv.AddPolicyAssignment(ctx, &api.AddPolicyAssignmentRequest{Assignment: &api.PolicyAssignment{
			Name: "global", Direction: api.PolicyDirection_POLICY_DIRECTION_IMPORT,
			Policies: []*api.Policy{{Name: "own-routes-only"}}, DefaultAction: api.RouteAction_ROUTE_ACTION_REJECT}})
	}
	if err == nil {
		err = s.srv.AddPeerGroup(ctx, &api.AddPeerGroupRequest{PeerGroup: s.peerGroup()})
	}
	for _, p := range s.cfg.Peers {
		if err == nil {
			err = s.srv.AddDynamicNeighbor(ctx, &api.AddDynamicNeighborRequest{DynamicNeighbor: &api.DynamicNeighbor{Prefix: p.String(), PeerGroup: "routers"}})
		}
	}
	wctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	if err == nil {
		err = s.srv.WatchEvent(wctx, server.WatchEventMessageCallbacks{
			OnPathUpdate: s.onPaths, OnPathEor: s.onEOR, OnPeerUpdate: s.onPeer,
		}, server.WatchUpdate(false, "", ""), server.WatchEor(false), server.WatchPeer())
	}
	if err != nil {
		s.Stop()
		return fmt.Errorf("bgp: %w", err)
	}
	s.log.Info("bgp: listening", "addr", s.cfg.Listen, "as", s.cfg.AS)
	return nil
}

// startMu serializes StartBgp, which sets package variables of GoBGP (its route selection
// options): two speakers in one process (tests) start one at a time.
var startMu sync.Mutex

// peerGroup is the configuration of every router's session: passive, the unicast families
// learned and the flowspec ones announced, graceful restart as a helper (receiver) only.
func (s *Speaker) peerGroup() *api.PeerGroup {
	fam := func(afi api.Family_Afi, safi api.Family_Safi) *api.AfiSafi {
		return &api.AfiSafi{Config: &api.AfiSafiConfig{Family: &api.Family{Afi: afi, Safi: safi}, Enabled: true},
			MpGracefulRestart: &api.MpGracefulRestart{Config: &api.MpGracefulRestartConfig{Enabled: true}}}
	}
	hold := uint64(s.cfg.HoldTime / time.Second)
	return &api.PeerGroup{
		Conf:      &api.PeerGroupConf{PeerGroupName: "routers"},
		Transport: &api.Transport{PassiveMode: true},
		Timers:    &api.Timers{Config: &api.TimersConfig{HoldTime: hold, KeepaliveInterval: max(hold/3, 1)}},
		GracefulRestart: &api.GracefulRestart{Enabled: true, HelperOnly: true,
			RestartTime: uint32(s.cfg.RestartTime / time.Second)},
		AfiSafis: []*api.AfiSafi{
			fam(api.Family_AFI_IP, api.Family_SAFI_UNICAST), fam(api.Family_AFI_IP6, api.Family_SAFI_UNICAST),
			fam(api.Family_AFI_IP, api.Family_SAFI_FLOW_SPEC_UNICAST), fam(api.Family_AFI_IP6, api.Family_SAFI_FLOW_SPEC_UNICAST),
		},
	}
}

// Stop closes every session and stops listening; again does nothing.
func (s *Speaker) Stop() { s.stopped.Do(s.stop) }

func (s *Speaker) stop() {
	if s.cancel != nil {
		s.cancel()
	}
	if s.srv != nil {
		s.srv.Stop() // StopBgp within: called twice, it logs an error on every shutdown
	}
	s.mu.Lock()
	for _, r := range s.routers {
		if r.restartTimer != nil {
			r.restartTimer.Stop()
		}
	}
	s.mu.Unlock()
}

// Lookup returns the route of the longest prefix covering addr in the table of router (the
// exporter's address), else in any router's (the first to have connected first), without
// allocating.
func (s *Speaker) Lookup(router, addr netip.Addr) (*Route, bool) {
	addr = addr.Unmap()
	s.mu.RLock()
	defer s.mu.RUnlock()
	if r := s.routers[router.Unmap()]; r != nil {
		if a := r.lookup(addr); a != 0 {
			return s.attrs.routes[a], true
		}
	}
	for _, r := range s.order {
		if a := r.lookup(addr); a != 0 {
			return s.attrs.routes[a], true
		}
	}
	return nil, false
}

func (r *router) lookup(a netip.Addr) uint32 {
	t, stale := r.v4, r.stale4
	if a.Is6() {
		t, stale = r.v6, r.stale6
	}
	if x := t.lookup(a); x != 0 || stale == nil {
		return x
	}
	return stale.lookup(a)
}

// PeerStatus is one router's session as collector-status shows it.
type PeerStatus struct {
	Address netip.Addr `json:"address"`
	AS      uint32     `json:"as"`
	// State is established, idle, connect, active, opensent, openconfirm, or refused (an
	// address outside -bgp-peers that tried).
	State  string    `json:"state"`
	Routes int       `json:"routes"`
	Since  time.Time `json:"since"`
}

// Status returns every router's session, the refused addresses last.
func (s *Speaker) Status() []PeerStatus {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]PeerStatus, 0, len(s.order)+len(s.refused))
	for _, r := range s.order {
		out = append(out, PeerStatus{Address: r.addr, AS: r.as, State: stateName(r.state), Routes: r.routes(), Since: r.since})
	}
	for a := range s.refused {
		out = append(out, PeerStatus{Address: a, State: "refused"})
	}
	return out
}

func stateName(st gobgp.FSMState) string {
	switch st {
	case gobgp.BGP_FSM_ESTABLISHED:
		return "established"
	case gobgp.BGP_FSM_CONNECT:
		return "connect"
	case gobgp.BGP_FSM_ACTIVE:
		return "active"
	case gobgp.BGP_FSM_OPENSENT:
		return "opensent"
	case gobgp.BGP_FSM_OPENCONFIRM:
		return "openconfirm"
	}
	return "idle"
}

// Updates is the number of routes received (announced or withdrawn) since Start; Refused the
// connections refused for coming from outside -bgp-peers.
func (s *Speaker) Updates() uint64 { return s.updates.Load() }

// Refused is the number of connections refused for coming from outside -bgp-peers.
func (s *Speaker) Refused() uint64 { return s.refusals.Load() }

// routerOf returns the router of addr, added when new. Under s.mu.
func (s *Speaker) routerOf(addr netip.Addr) *router {
	r := s.routers[addr]
	if r == nil {
		r = &router{addr: addr, v4: newTrie(), v6: newTrie(), since: time.Now()}
		s.routers[addr] = r
		s.order = append(s.order, r)
	}
	return r
}

// onPaths applies the routes a router sent, before GoBGP's import policy.
func (s *Speaker) onPaths(paths []*apiutil.Path, _ time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range paths {
		if p.Family != gobgp.RF_IPv4_UC && p.Family != gobgp.RF_IPv6_UC {
			continue
		}
		nlri, ok := p.Nlri.(*gobgp.IPAddrPrefix)
		if !ok {
			continue
		}
		s.updates.Add(1)
		r := s.routerOf(p.PeerAddress.Unmap())
		s.apply(r, nlri.Prefix, p.Withdrawal, p.Attrs)
	}
}

// apply learns or forgets one route of r. Under s.mu.
func (s *Speaker) apply(r *router, prefix netip.Prefix, withdraw bool, attrs []gobgp.PathAttributeInterface) {
	prefix = netip.PrefixFrom(prefix.Addr().Unmap(), prefix.Bits()).Masked()
	t, stale := r.v4, r.stale4
	if prefix.Addr().Is6() {
		t, stale = r.v6, r.stale6
	}
	if stale != nil {
		s.attrs.release(stale.remove(prefix))
	}
	if withdraw {
		s.attrs.release(t.remove(prefix))
		return
	}
	s.buf = attrKey(s.buf[:0], attrs)
	s.attrs.release(t.insert(prefix, s.attrs.get(s.buf)))
	if r.routes() > s.cfg.MaxPrefixes && !r.reset {
		r.reset = true
		s.log.Warn("bgp: router sent more routes than the bound; resetting its session", "router", r.addr, "max_prefixes", s.cfg.MaxPrefixes)
		go func(addr string) {
			_ = s.srv.ShutdownPeer(context.Background(), &api.ShutdownPeerRequest{Address: addr, Communication: "maximum number of prefixes reached"})
		}(r.addr.String())
	}
}

// onEOR drops the routes a restarting router did not send again.
func (s *Speaker) onEOR(p *apiutil.Path, _ time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.routers[p.PeerAddress.Unmap()]
	if r == nil {
		return
	}
	switch p.Family {
	case gobgp.RF_IPv4_UC:
		s.drop(&r.stale4)
	case gobgp.RF_IPv6_UC:
		s.drop(&r.stale6)
	}
}

// drop forgets the routes of *t. Under s.mu.
func (s *Speaker) drop(t **trie) {
	if *t != nil {
		(*t).each(s.attrs.release)
		*t = nil
	}
}

// onPeer follows a router's session: when it ends, its routes go, or stay marked stale while
// it restarts gracefully (it said so in its OPEN and did not end the session by a NOTIFICATION).
func (s *Speaker) onPeer(ev *apiutil.WatchEventMessage_PeerEvent, _ time.Time) {
	if ev.Type != apiutil.PEER_EVENT_STATE {
		return
	}
	st := ev.Peer.State
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.routerOf(st.NeighborAddress.Unmap())
	was := r.state
	r.state = st.SessionState
	if st.SessionState == gobgp.BGP_FSM_ESTABLISHED {
		r.as, r.since, r.reset = st.PeerASN, time.Now(), false
		r.grTime, r.gr4, r.gr6 = restartOf(st.RemoteCap)
		s.log.Info("bgp: session established", "router", r.addr, "as", r.as)
		return
	}
	if was != gobgp.BGP_FSM_ESTABLISHED {
		return
	}
	r.since = time.Now()
	graceful := r.grTime > 0 && !r.reset && st.DisconnectReason != api.PeerState_DISCONNECT_REASON_NOTIFICATION_RECEIVED &&
		st.DisconnectReason != api.PeerState_DISCONNECT_REASON_NOTIFICATION_SENT && st.DisconnectReason != api.PeerState_DISCONNECT_REASON_ADMIN_DOWN
	s.log.Info("bgp: session ended", "router", r.addr, "reason", st.DisconnectReason.String(), "stale", graceful)
	s.drop(&r.stale4)
	s.drop(&r.stale6)
	if !graceful {
		s.drop(&r.v4)
		s.drop(&r.v6)
		r.v4, r.v6 = newTrie(), newTrie()
		return
	}
	r.stale4, r.stale6, r.v4, r.v6 = r.v4, r.v6, newTrie(), newTrie()
	if !r.gr4 {
		s.drop(&r.stale4)
	}
	if !r.gr6 {
		s.drop(&r.stale6)
	}
	if r.restartTimer != nil {
		r.restartTimer.Stop()
	}
	r.restartTimer = time.AfterFunc(min(r.grTime, s.cfg.RestartTime), func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.drop(&r.stale4)
		s.drop(&r.stale6)
	})
}

// restartOf returns the restart time a router's graceful restart capability announces and
// whether it lists IPv4 and IPv6 unicast (RFC 4724: the families whose routes are kept).
func restartOf(caps []gobgp.ParameterCapabilityInterface) (d time.Duration, v4, v6 bool) {
	for _, c := range caps {
		if gr, ok := c.(*gobgp.CapGracefulRestart); ok {
			for _, f := range gr.Tuples {
				v4 = v4 || f.AFI == gobgp.AFI_IP && f.SAFI == gobgp.SAFI_UNICAST
				v6 = v6 || f.AFI == gobgp.AFI_IP6 && f.SAFI == gobgp.SAFI_UNICAST
			}
			return time.Duration(gr.Time) * time.Second, v4, v6
		}
	}
	return 0, false, false
}

// refuse notes a connection from outside -bgp-peers, logged once per address (the first
// maxRefused addresses are kept for Status; later ones are counted only).
func (s *Speaker) refuse(addr netip.Addr) {
	s.refusals.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refused[addr] || len(s.refused) >= maxRefused {
		return
	}
	s.refused[addr] = true
	s.log.Warn("bgp: refused a session from an address outside -bgp-peers", "addr", addr)
}

// maxRefused bounds the refused addresses Status lists.
const maxRefused = 64

// errNotStarted is returned by Announce and Withdraw before Start.
var errNotStarted = errors.New("bgp: the speaker is not started")
