package bgp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	gobgp "github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// Speaker is the service's BGP speaker. Lookup, Announce, Withdraw and Status are safe for
// concurrent use once New returned.
type Speaker struct {
	cfg       Config
	log       *slog.Logger
	ln        net.Listener
	open      []byte // the speaker's OPEN
	wg        sync.WaitGroup
	accepting chan struct{} // closed when the accept loop returns

	mu       sync.RWMutex // guards what follows: the sessions and the learned routes
	sessions map[netip.Addr]*session
	// routers are the addresses whose session got as far as a valid OPEN (at most MaxRouters;
	// a new one takes the place of the router idle the longest, without routes, when full).
	routers map[netip.Addr]*router
	order   []*router // routers in the order of their first valid OPEN, for Lookup's fallback
	// opening are the connections from addresses that are not routers, before their OPEN, the
	// oldest first, until they close (at most maxOpening).
	opening []*session
	attrs   *interned
	buf     []byte
	refused map[netip.Addr]bool

	amu       sync.Mutex // guards announced and peers
	announced map[Mitigation]*announcement
	peers     map[*session]bool // the Established sessions

	updates, refusals atomic.Uint64
	full              atomic.Bool // MaxRouters reached, logged once
	crowded           atomic.Bool // maxOpening reached, logged once
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
	// draining is the router's last connection whose session ended, while it is drained.
	draining *session
	// attrBytes is the cost of the attribute sets it sent first (attrs.go), until released.
	attrBytes int
	// reset is the Cease subcode of the session being reset for passing MaxPrefixes or
	// MaxAttrBytes (0: none).
	reset uint8
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
	s := &Speaker{cfg: cfg, log: log, sessions: map[netip.Addr]*session{}, routers: map[netip.Addr]*router{},
		attrs: newInterned(), refused: map[netip.Addr]bool{}, announced: map[Mitigation]*announcement{},
		peers: map[*session]bool{}}
	if s.open, err = s.openMessage(); err != nil {
		return nil, fmt.Errorf("bgp: the OPEN message: %w", err)
	}
	return s, nil
}

// Start listens for routers' sessions until Stop.
func (s *Speaker) Start(ctx context.Context) error {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", s.cfg.Listen)
	if err != nil {
		return fmt.Errorf("bgp: -bgp %s: %w", s.cfg.Listen, err)
	}
	s.ln, s.accepting = ln, make(chan struct{})
	go s.accept()
	s.log.Info("bgp: listening", "addr", s.cfg.Listen, "as", s.cfg.AS)
	return nil
}

// accept takes the routers' connections: one session per router of -bgp-peers.
func (s *Speaker) accept() {
	defer close(s.accepting)
	for {
		c, err := s.ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil { // out of file descriptors, say: the next try may do
			s.log.Warn("bgp: accept", "error", err)
			time.Sleep(100 * time.Millisecond)
			continue
		}
		ap, _ := netip.ParseAddrPort(c.RemoteAddr().String())
		addr := ap.Addr().Unmap()
		if !s.allowed(addr) {
			c.Close()
			s.refuse(addr)
			continue
		}
		if !s.known(addr) {
			c.Close()
			continue
		}
		ss := &session{s: s, conn: c, addr: addr, in: bufio.NewReaderSize(c, readBuffer),
			wake: make(chan struct{}, 1), done: make(chan struct{})}
		if !s.register(ss) {
			// A second connection while the router's session is Established: the session stays.
			if msg, err := gobgp.NewBGPNotificationMessage(gobgp.BGP_ERROR_CEASE, gobgp.BGP_ERROR_SUB_CONNECTION_COLLISION_RESOLUTION, nil).Serialize(); err == nil {
				_ = c.SetWriteDeadline(time.Now().Add(writeTimeout))
				_, _ = c.Write(msg)
			}
			c.Close()
			continue
		}
		s.wg.Add(1)
		go ss.run()
	}
}

// known reports whether addr is a router the speaker has a table for, or may have one more
// (there are fewer than MaxRouters, or one is idle without routes and may make room): else
// its connection is closed before anything is read. A router is added only by its session's
// valid OPEN (session.open), where the bound is kept: an address of a prefix of -bgp-peers (an
// IPv6 /64, say) that connects and sends nothing adds no router.
func (s *Speaker) known(addr netip.Addr) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.routers[addr] != nil || len(s.routers) < s.cfg.MaxRouters || s.idlest() != nil {
		return true
	}
	s.warnFull(addr)
	return false
}

// warnFull logs, once, that a new router was turned away for MaxRouters.
func (s *Speaker) warnFull(addr netip.Addr) {
	if s.full.CompareAndSwap(false, true) {
		s.log.Warn("bgp: more routers than the bound; connections from new addresses are closed", "addr", addr, "max_routers", s.cfg.MaxRouters)
	}
}

// idlest returns the router that may make room for a new one: of those without a session,
// routes or stale routes (kept through a graceful restart), the one idle the longest (nil:
// none). Under s.mu.
func (s *Speaker) idlest() *router {
	var idle *router
	for _, r := range s.order {
		if s.sessions[r.addr] == nil && r.stale4 == nil && r.stale6 == nil &&
			r.v4.routes == 0 && r.v6.routes == 0 && (idle == nil || r.since.Before(idle.since)) {
			idle = r
		}
	}
	return idle
}

// addRouter adds the router of ss, whose OPEN is valid, unless it has one already. When there
// are MaxRouters, the idlest one without routes goes (out of Status and of Lookup's fallback);
// when none may, the session ends (Cease, out of resources). Under s.mu.
func (s *Speaker) addRouter(ss *session) (*router, *ending) {
	if r := s.routers[ss.addr]; r != nil {
		s.opened(ss)
		return r, nil
	}
	if len(s.routers) >= s.cfg.MaxRouters {
		idle := s.idlest()
		if idle == nil {
			s.warnFull(ss.addr)
			return nil, notify(gobgp.BGP_ERROR_CEASE, gobgp.BGP_ERROR_SUB_OUT_OF_RESOURCES, nil, "more routers than the bound")
		}
		s.log.Info("bgp: an idle router without routes makes room for a new one", "router", idle.addr, "new", ss.addr)
		delete(s.routers, idle.addr)
		s.order = slices.DeleteFunc(s.order, func(r *router) bool { return r == idle })
	}
	r := &router{addr: ss.addr, v4: newTrie(), v6: newTrie(), since: time.Now(), state: gobgp.BGP_FSM_OPENSENT}
	s.routers[ss.addr] = r
	s.order = append(s.order, r)
	s.opened(ss)
	return r, nil
}

// opened takes ss out of the connections before their OPEN. Under s.mu.
func (s *Speaker) opened(ss *session) {
	if i := slices.Index(s.opening, ss); i >= 0 {
		s.opening = slices.Delete(s.opening, i, i+1)
	}
}

// closed notes that the connection of ss is closed. It takes s.mu.
func (s *Speaker) closed(ss *session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opened(ss)
}

func (s *Speaker) allowed(a netip.Addr) bool {
	for _, p := range s.cfg.Peers {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// register makes ss its address's session, unless the router's session is Established; an
// earlier connection not yet Established is ended (the router gave up on it). A connection
// from an address that is not a router yet is one of the opening ones until its OPEN: past
// maxOpening of them, the oldest is closed (a router sends its OPEN as soon as it connects).
func (s *Speaker) register(ss *session) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.routers[ss.addr]
	if old := s.sessions[ss.addr]; old != nil {
		if r != nil && r.state == gobgp.BGP_FSM_ESTABLISHED {
			return false
		}
		old.stop(&ending{code: gobgp.BGP_ERROR_CEASE, sub: gobgp.BGP_ERROR_SUB_CONNECTION_COLLISION_RESOLUTION, why: "a newer connection"})
	}
	s.sessions[ss.addr] = ss
	if r == nil {
		for _, o := range s.opening {
			if o.addr == ss.addr { // an earlier connection of the address, ended and drained
				o.cutDrain()
			}
		}
		if len(s.opening) >= maxOpening {
			oldest := s.opening[0]
			s.opening = slices.Delete(s.opening, 0, 1)
			oldest.stop(&ending{code: gobgp.BGP_ERROR_CEASE, sub: gobgp.BGP_ERROR_SUB_OUT_OF_RESOURCES, why: "more connections before their OPEN than the bound"})
			oldest.cutDrain()
			if s.crowded.CompareAndSwap(false, true) {
				s.log.Warn("bgp: more connections from new addresses before their OPEN than the bound; the oldest are closed", "addr", ss.addr, "max_opening", maxOpening)
			}
		}
		s.opening = append(s.opening, ss)
		return true
	}
	r.state = gobgp.BGP_FSM_ACTIVE
	if r.draining != nil {
		r.draining.cutDrain()
		r.draining = nil
	}
	return true
}

// maxOpening bounds the connections from addresses that are not routers yet, before their
// OPEN (each holds a goroutine and a read buffer until its OPEN or the hold time offered).
const maxOpening = 64

// draining makes ss, which ended, its router's connection being drained (session.end), the
// drain of an earlier one cut short; false when the address is on a newer connection already.
// A connection without a router (no valid OPEN) is drained while it is one of the opening
// ones.
func (s *Speaker) draining(ss *session) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sessions[ss.addr] != nil {
		return false
	}
	if slices.Contains(s.opening, ss) {
		return true // it keeps its place among the opening ones until it is closed
	}
	r := s.routers[ss.addr]
	if r == nil { // closed to make room for a newer one
		return false
	}
	if r.draining != nil {
		r.draining.cutDrain()
	}
	r.draining = ss
	return true
}

// drained notes the end of ss's drain.
func (s *Speaker) drained(ss *session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.routers[ss.addr]; r != nil && r.draining == ss {
		r.draining = nil
	}
}

// Stop closes every session (a Cease NOTIFICATION, administrative shutdown) and stops
// listening; again does nothing.
func (s *Speaker) Stop() { s.stopped.Do(s.stop) }

func (s *Speaker) stop() {
	if s.ln != nil {
		s.ln.Close()
		<-s.accepting
	}
	s.mu.Lock()
	for _, ss := range s.sessions {
		ss.stop(&ending{code: gobgp.BGP_ERROR_CEASE, sub: gobgp.BGP_ERROR_SUB_ADMINISTRATIVE_SHUTDOWN, why: "the service stops"})
	}
	s.mu.Unlock()
	s.wg.Wait()
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

// PeerStatus is one router's session as collector-status shows it: a router is an address of
// -bgp-peers whose session got as far as a valid OPEN, listed from then on (a connection that
// sends none is not), until it is idle without routes and a new router takes its place.
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

// learn applies an UPDATE of the router at addr to its table: its withdrawals, its routes
// (withdrawn too when withdraw, an attribute error), or its End-of-RIB. It returns the Cease
// subcode of the router's session reset when it passed MaxPrefixes or MaxAttrBytes, else 0.
func (s *Speaker) learn(addr netip.Addr, u *gobgp.BGPUpdate, withdraw bool) uint8 {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.routers[addr]
	if r == nil { // never so: a session reads UPDATEs once its OPEN added its router
		return 0
	}
	if eor, f := u.IsEndOfRib(); eor {
		switch f {
		case gobgp.RF_IPv4_UC:
			s.drop(&r.stale4)
		case gobgp.RF_IPv6_UC:
			s.drop(&r.stale6)
		}
		return 0
	}
	for _, w := range u.WithdrawnRoutes {
		s.route(r, w.NLRI, true, nil)
	}
	for _, a := range u.PathAttributes {
		switch a := a.(type) {
		case *gobgp.PathAttributeMpUnreachNLRI:
			for _, n := range a.Value {
				s.route(r, n.NLRI, true, nil)
			}
		case *gobgp.PathAttributeMpReachNLRI:
			for _, n := range a.Value {
				s.route(r, n.NLRI, withdraw, u.PathAttributes)
			}
		}
	}
	for _, n := range u.NLRI {
		s.route(r, n.NLRI, withdraw, u.PathAttributes)
	}
	return r.reset
}

// route applies one unicast route (other families are not learned). Under s.mu.
func (s *Speaker) route(r *router, n gobgp.NLRI, withdraw bool, attrs []gobgp.PathAttributeInterface) {
	p, ok := n.(*gobgp.IPAddrPrefix)
	if !ok || !p.Prefix.IsValid() {
		return
	}
	s.updates.Add(1)
	s.apply(r, p.Prefix, withdraw, attrs)
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
	s.attrs.release(t.insert(prefix, s.attrs.get(s.buf, &r.attrBytes)))
	switch {
	case r.reset != 0:
	case r.routes() > s.cfg.MaxPrefixes:
		r.reset = gobgp.BGP_ERROR_SUB_MAXIMUM_NUMBER_OF_PREFIXES_REACHED
		s.log.Warn("bgp: router sent more routes than the bound; resetting its session", "router", r.addr, "max_prefixes", s.cfg.MaxPrefixes)
	case r.attrBytes > s.cfg.MaxAttrBytes:
		r.reset = gobgp.BGP_ERROR_SUB_OUT_OF_RESOURCES
		s.log.Warn("bgp: router sent more AS paths and communities than the bound; resetting its session", "router", r.addr, "max_attr_bytes", s.cfg.MaxAttrBytes)
	}
}

// drop forgets the routes of *t. Under s.mu.
func (s *Speaker) drop(t **trie) {
	if *t != nil {
		(*t).each(s.attrs.release)
		*t = nil
	}
}

// up makes ss's router Established: it gets the announcements, then End-of-RIB of each family.
func (s *Speaker) up(ss *session) {
	s.amu.Lock() // before s.mu, as down takes them
	defer s.amu.Unlock()
	s.mu.Lock()
	r := s.routers[ss.addr]
	mine := s.sessions[ss.addr] == ss && r != nil
	if mine {
		r.state = gobgp.BGP_FSM_ESTABLISHED
		r.as, r.since, r.reset = ss.as, time.Now(), 0
	}
	s.mu.Unlock()
	if !mine { // a newer connection ends it
		return
	}
	s.log.Info("bgp: session established", "router", ss.addr, "as", ss.as)
	s.peers[ss] = true
	for _, a := range s.announced {
		if msg := ss.encode(a, false); msg != nil {
			ss.queue(msg)
		}
	}
	for f := range ss.families {
		if msg, err := gobgp.NewEndOfRib(f).Serialize(); err == nil {
			ss.queue(msg)
		}
	}
}

// refresh sends ss the announcements of family again (the router's ROUTE-REFRESH, RFC 2918).
func (s *Speaker) refresh(ss *session, f gobgp.Family) {
	s.amu.Lock()
	defer s.amu.Unlock()
	for _, a := range s.announced {
		if a.family == f {
			if msg := ss.encode(a, false); msg != nil {
				ss.queue(msg)
			}
		}
	}
}

// down takes ss out of the speaker: when it was Established, its router's routes go, or stay
// marked stale while it restarts gracefully (it said so in its OPEN, and the session ended
// without a NOTIFICATION).
func (s *Speaker) down(ss *session, e *ending) {
	s.amu.Lock()
	delete(s.peers, ss)
	s.amu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sessions[ss.addr] != ss {
		return
	}
	delete(s.sessions, ss.addr)
	r := s.routers[ss.addr]
	if r == nil { // no valid OPEN: nothing to keep
		s.log.Info("bgp: session not established", "router", ss.addr, "reason", e.why)
		return
	}
	was := r.state
	r.state = gobgp.BGP_FSM_IDLE
	if was != gobgp.BGP_FSM_ESTABLISHED {
		s.log.Info("bgp: session not established", "router", r.addr, "reason", e.why)
		return
	}
	r.since = time.Now()
	graceful := r.grTime > 0 && r.reset == 0 && e.graceful && e.code == 0
	s.log.Info("bgp: session ended", "router", r.addr, "reason", e.why, "stale", graceful)
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
	// A flood of connections from one address, or from more than maxRefused, takes only the
	// read lock, which Lookup (the collector's per-record path) shares.
	s.mu.RLock()
	known := s.refused[addr] || len(s.refused) >= maxRefused
	s.mu.RUnlock()
	if known {
		return
	}
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
