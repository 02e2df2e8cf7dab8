package bgp

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	gobgp "github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// session is one router's BGP session, the passive side of RFC 4271's FSM (§8): the speaker
// sends its OPEN, checks the router's, confirms it with a KEEPALIVE and is Established when the
// router confirms too; then the router's UPDATEs go straight into the speaker's table and the
// speaker's announcements go out, until either side ends it. Every message is encoded and
// decoded by GoBGP's wire library (pkg/packet/bgp); the session reads through one bounded
// buffer and keeps no copy of the routes.
type session struct {
	s    *Speaker
	conn net.Conn
	addr netip.Addr
	in   *bufio.Reader
	buf  [maxMessage]byte // the message being read

	as       uint32
	ibgp     bool
	as4      bool          // the router has 4-octet AS numbers (else its paths are 2-octet)
	hold     time.Duration // agreed; 0: no KEEPALIVEs and no hold timer
	families map[gobgp.Family]gobgp.BGPAddPathMode
	opt      *gobgp.MarshallingOption

	// halt, once set, is why the session is to end (Stop, a newer connection): the reader
	// finds it when its read is cut short.
	halt atomic.Pointer[ending]
	// cut, once set, ends the drain of the session's end (a newer connection of the router).
	cut atomic.Bool

	rmu       sync.Mutex                 // guards refreshed and pending
	refreshed map[gobgp.Family]time.Time // when the router's last ROUTE-REFRESH of a family was answered
	pending   map[gobgp.Family]bool      // an answer is due at the end of the family's refreshGap

	wmu  sync.Mutex // serializes writes on conn
	qmu  sync.Mutex // guards queue
	out  [][]byte   // messages waiting for the writer
	wake chan struct{}
	done chan struct{} // closed when the session ends: the writer returns
}

// ending is why a session ends: the NOTIFICATION sent (code 0: none), and whether the
// router's routes may stay while it restarts gracefully (RFC 4724: the connection was lost,
// no NOTIFICATION either way).
type ending struct {
	code, sub uint8
	data      []byte
	graceful  bool
	why       string
}

func notify(code, sub uint8, data []byte, why string) *ending {
	return &ending{code: code, sub: sub, data: data, why: why}
}

// Bounds of a session (docs/bgp.md).
const (
	// maxMessage is the largest message read or sent: RFC 4271's 4,096 bytes (the extended
	// message capability, RFC 8654, is not offered).
	maxMessage = gobgp.BGP_MAX_MESSAGE_LENGTH
	// readBuffer is each session's read buffer.
	readBuffer = 64 << 10
	// writeTimeout bounds one write to a router; past it the session ends.
	writeTimeout = 10 * time.Second
	// maxQueued bounds the messages waiting for a router that does not read; past it the
	// session ends.
	maxQueued = 4096
	// writeRun is the most queued messages written in one system call (64 UPDATEs of at most
	// 4,096 bytes each).
	writeRun = 64
)

// families are the families the speaker offers: unicast learned, flowspec and unicast
// announced.
var families = []gobgp.Family{gobgp.RF_IPv4_UC, gobgp.RF_IPv6_UC, gobgp.RF_FS_IPv4_UC, gobgp.RF_FS_IPv6_UC}

// run is the session from the connection to its end.
func (ss *session) run() {
	defer ss.s.wg.Done()
	e := ss.open()
	if e == nil {
		ss.s.up(ss)
		go ss.write()
		e = ss.established()
	}
	ss.end(e)
}

// open exchanges the OPENs and their KEEPALIVEs (OpenSent, OpenConfirm).
func (ss *session) open() *ending {
	s := ss.s
	if err := ss.send(s.open); err != nil {
		return &ending{why: err.Error()}
	}
	ss.state(gobgp.BGP_FSM_OPENSENT)
	// Until the router's OPEN the hold timer is the time offered (RFC 4271 suggests 4 minutes).
	typ, body, e := ss.read(time.Now().Add(s.cfg.HoldTime))
	if e != nil {
		return e
	}
	if typ != gobgp.BGP_MSG_OPEN {
		return ss.unexpected(typ, gobgp.BGP_ERROR_SUB_RECEIVE_UNEXPECTED_MESSAGE_IN_OPENSENT_STATE)
	}
	var o gobgp.BGPOpen
	if err := o.DecodeFromBytes(body); err != nil {
		return messageError(err)
	}
	as, err := gobgp.ValidateOpenMsg(&o, 0, s.cfg.AS, s.cfg.RouterID)
	if err != nil {
		return messageError(err)
	}
	ss.as, ss.ibgp = as, as == s.cfg.AS
	ss.hold = min(s.cfg.HoldTime, time.Duration(o.HoldTime)*time.Second)
	if e := ss.capabilities(&o); e != nil {
		return e
	}
	if err := ss.send(keepalive); err != nil {
		return &ending{why: err.Error()}
	}
	ss.state(gobgp.BGP_FSM_OPENCONFIRM)
	confirm := ss.deadline()
	if ss.hold == 0 { // no hold timer once Established; the KEEPALIVE still within the time offered
		confirm = time.Now().Add(s.cfg.HoldTime)
	}
	typ, _, e = ss.read(confirm)
	if e != nil {
		return e
	}
	if typ != gobgp.BGP_MSG_KEEPALIVE {
		return ss.unexpected(typ, gobgp.BGP_ERROR_SUB_RECEIVE_UNEXPECTED_MESSAGE_IN_OPENCONFIRM_STATE)
	}
	return nil
}

// capabilities notes what the router's OPEN, a valid one, offers: 4-octet AS numbers, the
// families both sides have (IPv4 unicast when it lists none, RFC 4760), graceful restart. A
// router's first valid OPEN adds it to the speaker (Status, a table), within MaxRouters.
func (ss *session) capabilities(o *gobgp.BGPOpen) *ending {
	var caps []gobgp.ParameterCapabilityInterface
	for _, p := range o.OptParams {
		if c, ok := p.(*gobgp.OptionParameterCapability); ok {
			caps = append(caps, c.Capability...)
		}
	}
	ss.families = map[gobgp.Family]gobgp.BGPAddPathMode{}
	mp := false
	for _, c := range caps {
		switch c := c.(type) {
		case *gobgp.CapFourOctetASNumber:
			ss.as4 = true
		case *gobgp.CapMultiProtocol:
			mp = true
			for _, f := range families {
				if f == c.CapValue {
					ss.families[f] = gobgp.BGP_ADD_PATH_NONE
				}
			}
		}
	}
	if !mp {
		ss.families[gobgp.RF_IPv4_UC] = gobgp.BGP_ADD_PATH_NONE
	}
	ss.opt = &gobgp.MarshallingOption{Use2ByteAS: !ss.as4}
	grTime, gr4, gr6 := restartOf(caps)
	ss.s.mu.Lock()
	defer ss.s.mu.Unlock()
	if e := ss.halt.Load(); e != nil { // closed meanwhile (a newer connection, Stop, room for others)
		return e
	}
	r, e := ss.s.addRouter(ss)
	if e != nil {
		return e
	}
	r.grTime, r.gr4, r.gr6 = grTime, gr4, gr6
	return nil
}

// established reads the router's messages until the session ends.
func (ss *session) established() *ending {
	for {
		typ, body, e := ss.read(ss.deadline())
		if e != nil {
			return e
		}
		switch typ {
		case gobgp.BGP_MSG_KEEPALIVE:
		case gobgp.BGP_MSG_UPDATE:
			if e := ss.update(body); e != nil {
				return e
			}
		case gobgp.BGP_MSG_ROUTE_REFRESH:
			var rr gobgp.BGPRouteRefresh
			if err := rr.DecodeFromBytes(body); err != nil {
				return messageError(err)
			}
			ss.refresh(gobgp.NewFamily(rr.AFI, rr.SAFI))
		default:
			return ss.unexpected(typ, gobgp.BGP_ERROR_SUB_RECEIVE_UNEXPECTED_MESSAGE_IN_ESTABLISHED_STATE)
		}
	}
}

// refreshGap is the least time between two answers to a router's ROUTE-REFRESHes of one
// family.
const refreshGap = time.Second

// refresh answers the router's ROUTE-REFRESH of family f (RFC 2918) with the speaker's
// announcements of f: at once, or, within refreshGap of the last answer, once at the end of
// the gap however many arrive meanwhile, so that a router's 23-byte messages cannot make the
// speaker encode its announcements without end. Every refresh is answered by one that follows
// it.
func (ss *session) refresh(f gobgp.Family) {
	ss.rmu.Lock()
	defer ss.rmu.Unlock()
	if ss.refreshed == nil {
		ss.refreshed, ss.pending = map[gobgp.Family]time.Time{}, map[gobgp.Family]bool{}
	}
	if ss.pending[f] {
		return
	}
	wait := time.Until(ss.refreshed[f].Add(refreshGap))
	if wait <= 0 {
		ss.refreshed[f] = time.Now()
		ss.s.refresh(ss, f)
		return
	}
	ss.pending[f] = true
	time.AfterFunc(wait, func() {
		select {
		case <-ss.done:
			return
		default:
		}
		ss.rmu.Lock()
		defer ss.rmu.Unlock()
		delete(ss.pending, f)
		ss.refreshed[f] = time.Now()
		ss.s.refresh(ss, f)
	})
}

// update decodes an UPDATE into the table. A message error (RFC 7606: one that leaves the
// message unreadable) ends the session; an attribute error withdraws the UPDATE's routes.
func (ss *session) update(body []byte) *ending {
	var u gobgp.BGPUpdate
	handling := gobgp.ERROR_HANDLING_NONE
	err := u.DecodeFromBytes(body, ss.opt)
	if err == nil {
		_, err = gobgp.ValidateUpdateMsg(&u, ss.families, !ss.ibgp, false, true)
	}
	if err != nil {
		var me *gobgp.MessageError
		if !errors.As(err, &me) {
			return notify(gobgp.BGP_ERROR_UPDATE_MESSAGE_ERROR, gobgp.BGP_ERROR_SUB_MALFORMED_ATTRIBUTE_LIST, nil, err.Error())
		}
		handling = me.ErrorHandling
		switch {
		case me.TypeCode == 0: // a family not negotiated, a flowspec rule out of order: ignored
			return nil
		case handling == gobgp.ERROR_HANDLING_SESSION_RESET, handling == gobgp.ERROR_HANDLING_AFISAFI_DISABLE:
			return notify(me.TypeCode, me.SubTypeCode, me.Data, me.Message)
		}
		if handling == gobgp.ERROR_HANDLING_TREAT_AS_WITHDRAW {
			ss.s.log.Warn("bgp: a malformed UPDATE; its routes are withdrawn", "router", ss.addr, "error", me.Message)
		}
	}
	if !ss.as4 {
		as4Path(&u)
	}
	switch sub := ss.s.learn(ss.addr, &u, handling == gobgp.ERROR_HANDLING_TREAT_AS_WITHDRAW); sub {
	case gobgp.BGP_ERROR_SUB_MAXIMUM_NUMBER_OF_PREFIXES_REACHED:
		return notify(gobgp.BGP_ERROR_CEASE, sub, nil, "maximum number of prefixes reached")
	case gobgp.BGP_ERROR_SUB_OUT_OF_RESOURCES:
		return notify(gobgp.BGP_ERROR_CEASE, sub, nil, "AS paths and communities past the bound")
	}
	return nil
}

// as4Path merges the AS4_PATH of a router without 4-octet AS numbers into its AS_PATH
// (RFC 6793 §4.2.3: the AS_PATH's first numbers, then the AS4_PATH).
func as4Path(u *gobgp.BGPUpdate) {
	var path *gobgp.PathAttributeAsPath
	var path4 *gobgp.PathAttributeAs4Path
	for _, a := range u.PathAttributes {
		switch a := a.(type) {
		case *gobgp.PathAttributeAsPath:
			path = a
		case *gobgp.PathAttributeAs4Path:
			path4 = a
		}
	}
	if path == nil || path4 == nil {
		return
	}
	var as, as4 []uint32
	for _, seg := range path.Value {
		as = append(as, seg.GetAS()...)
	}
	for _, seg := range path4.Value {
		as4 = append(as4, seg.AS...)
	}
	if len(as4) > len(as) {
		return
	}
	merged := append(as[:len(as)-len(as4):len(as)-len(as4)], as4...)
	path.Value = []gobgp.AsPathParamInterface{gobgp.NewAs4PathParam(gobgp.BGP_ASPATH_ATTR_TYPE_SEQ, merged)}
}

// read returns the next message (its body valid until the next read), the router's silence
// bounded by deadline (the hold timer; zero: none).
func (ss *session) read(deadline time.Time) (uint8, []byte, *ending) {
	if err := ss.conn.SetReadDeadline(deadline); err != nil {
		return 0, nil, &ending{why: err.Error(), graceful: true}
	}
	if e := ss.halt.Load(); e != nil { // stop's deadline was before this one
		return 0, nil, e
	}
	if _, err := io.ReadFull(ss.in, ss.buf[:gobgp.BGP_HEADER_LENGTH]); err != nil {
		return 0, nil, ss.readError(err)
	}
	typ, n, e := header(ss.buf[:gobgp.BGP_HEADER_LENGTH])
	if e != nil {
		return 0, nil, e
	}
	body := ss.buf[gobgp.BGP_HEADER_LENGTH:n]
	if _, err := io.ReadFull(ss.in, body); err != nil {
		return 0, nil, ss.readError(err)
	}
	if typ == gobgp.BGP_MSG_NOTIFICATION {
		e := &ending{why: "the router sent a NOTIFICATION"}
		if len(body) >= 2 {
			e.why += " (code " + strconv.Itoa(int(body[0])) + ", subcode " + strconv.Itoa(int(body[1])) + ")"
		}
		return 0, nil, e
	}
	return typ, body, nil
}

// header checks a message header (RFC 4271 §6.1) and returns the message's type and length.
func header(h []byte) (uint8, int, *ending) {
	for _, b := range h[:16] {
		if b != 0xff {
			return 0, 0, notify(gobgp.BGP_ERROR_MESSAGE_HEADER_ERROR, gobgp.BGP_ERROR_SUB_CONNECTION_NOT_SYNCHRONIZED, nil, "a marker not all ones")
		}
	}
	n, typ := int(binary.BigEndian.Uint16(h[16:])), h[18]
	least, most := 0, maxMessage
	switch typ {
	case gobgp.BGP_MSG_OPEN:
		least = 29
	case gobgp.BGP_MSG_UPDATE:
		least = 23
	case gobgp.BGP_MSG_NOTIFICATION:
		least = 21
	case gobgp.BGP_MSG_KEEPALIVE:
		least, most = 19, 19
	case gobgp.BGP_MSG_ROUTE_REFRESH:
		least, most = 23, 23
	default:
		return 0, 0, notify(gobgp.BGP_ERROR_MESSAGE_HEADER_ERROR, gobgp.BGP_ERROR_SUB_BAD_MESSAGE_TYPE, []byte{typ}, "an unknown message type")
	}
	if n < least || n > most {
		return 0, 0, notify(gobgp.BGP_ERROR_MESSAGE_HEADER_ERROR, gobgp.BGP_ERROR_SUB_BAD_MESSAGE_LENGTH, append([]byte(nil), h[16:18]...), "a bad message length "+strconv.Itoa(int(n)))
	}
	return typ, n, nil
}

// readError is the end of a read cut short: Stop or a newer connection (halt), the hold
// timer, or the connection lost.
func (ss *session) readError(err error) *ending {
	if e := ss.halt.Load(); e != nil {
		return e
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return &ending{code: gobgp.BGP_ERROR_HOLD_TIMER_EXPIRED, why: "hold timer expired", graceful: true}
	}
	return &ending{why: "connection lost: " + err.Error(), graceful: true}
}

// unexpected ends the session on a message its state does not expect (RFC 6608's subcodes).
func (ss *session) unexpected(typ, sub uint8) *ending {
	return notify(gobgp.BGP_ERROR_FSM_ERROR, sub, nil, "an unexpected message of type "+strconv.Itoa(int(typ)))
}

func messageError(err error) *ending {
	var me *gobgp.MessageError
	if errors.As(err, &me) {
		return notify(me.TypeCode, me.SubTypeCode, me.Data, me.Message)
	}
	return notify(gobgp.BGP_ERROR_CEASE, 0, nil, err.Error())
}

// deadline is the hold timer from now (zero when the hold time agreed is 0).
func (ss *session) deadline() time.Time {
	if ss.hold == 0 {
		return time.Time{}
	}
	return time.Now().Add(ss.hold)
}

// stop ends the session for e from another goroutine: its read returns at once.
func (ss *session) stop(e *ending) {
	if ss.halt.CompareAndSwap(nil, e) {
		_ = ss.conn.SetReadDeadline(time.Now())
	}
}

// end takes the session out of the speaker (its routes dropped or kept stale), sends the
// NOTIFICATION e names, and closes the connection.
func (ss *session) end(e *ending) {
	ss.s.down(ss, e)
	close(ss.done)
	if e.code != 0 {
		if msg, err := gobgp.NewBGPNotificationMessage(e.code, e.sub, e.data).Serialize(); err == nil {
			_ = ss.send(msg)
		}
	}
	ss.in = nil // its buffer is not needed any more
	// Half-close and read what the router still sends (bounded), so that the NOTIFICATION is
	// not lost to a reset of a connection with unread data; not when the router is on a newer
	// connection already, and cut short by one, which has no use for it: else each connection
	// of a router connecting in a loop would be held for the drain.
	if c, ok := ss.conn.(*net.TCPConn); ok && ss.s.draining(ss) {
		if c.CloseWrite() == nil {
			_ = c.SetReadDeadline(time.Now().Add(drainTime))
			if ss.cut.Load() {
				_ = c.SetReadDeadline(time.Now())
			}
			_, _ = io.Copy(io.Discard, io.LimitReader(c, 1<<20))
		}
		ss.s.drained(ss)
	}
	ss.conn.Close()
	ss.s.closed(ss)
}

// drainTime bounds the drain of a session's end (a variable for the tests).
var drainTime = 2 * time.Second

// cutDrain ends the drain of a session that ended, or will.
func (ss *session) cutDrain() {
	ss.cut.Store(true)
	_ = ss.conn.SetReadDeadline(time.Now())
}

// state sets the router's FSM state in Status, while this session is the router's.
func (ss *session) state(st gobgp.FSMState) {
	ss.s.mu.Lock()
	defer ss.s.mu.Unlock()
	if r := ss.s.routers[ss.addr]; r != nil && ss.s.sessions[ss.addr] == ss {
		r.state = st
	}
}

// send writes msgs, up to writeRun of them in one system call (writev), each run within
// writeTimeout.
func (ss *session) send(msgs ...[]byte) error {
	ss.wmu.Lock()
	defer ss.wmu.Unlock()
	for len(msgs) > 0 {
		run := net.Buffers(msgs[:min(len(msgs), writeRun)])
		msgs = msgs[len(run):]
		_ = ss.conn.SetWriteDeadline(time.Now().Add(writeTimeout))
		if _, err := run.WriteTo(ss.conn); err != nil {
			return err
		}
	}
	return nil
}

// queue hands messages to the writer; a router that lets maxQueued wait loses its session.
func (ss *session) queue(msgs ...[]byte) {
	ss.qmu.Lock()
	ss.out = append(ss.out, msgs...)
	over := len(ss.out) > maxQueued
	ss.qmu.Unlock()
	if over {
		ss.stop(&ending{code: gobgp.BGP_ERROR_CEASE, sub: gobgp.BGP_ERROR_SUB_OUT_OF_RESOURCES, why: "the router does not read its messages"})
		return
	}
	select {
	case ss.wake <- struct{}{}:
	default:
	}
}

// write sends the queued messages, and a KEEPALIVE every third of the hold time, until the
// session ends.
func (ss *session) write() {
	var tick <-chan time.Time
	if ss.hold > 0 {
		t := time.NewTicker(max(ss.hold/3, time.Second))
		defer t.Stop()
		tick = t.C
	}
	for {
		var msgs [][]byte
		select {
		case <-ss.done:
			return
		case <-tick:
			msgs = [][]byte{keepalive}
		case <-ss.wake:
			ss.qmu.Lock()
			msgs, ss.out = ss.out, nil
			ss.qmu.Unlock()
		}
		if err := ss.send(msgs...); err != nil {
			ss.stop(&ending{why: "write: " + err.Error(), graceful: true})
			return
		}
	}
}

var keepalive, _ = gobgp.NewBGPKeepAliveMessage().Serialize()

// openMessage is the speaker's OPEN: its AS (AS_TRANS when it needs 4 octets), hold time and
// identifier; the families, route refresh, 4-octet AS numbers and graceful restart as a
// receiver only (no families listed: the speaker keeps no forwarding state).
func (s *Speaker) openMessage() ([]byte, error) {
	caps := []gobgp.ParameterCapabilityInterface{gobgp.NewCapRouteRefresh()}
	for _, f := range families {
		caps = append(caps, gobgp.NewCapMultiProtocol(f))
	}
	caps = append(caps, gobgp.NewCapFourOctetASNumber(s.cfg.AS),
		gobgp.NewCapGracefulRestart(false, false, uint16(s.cfg.RestartTime/time.Second), nil))
	as := s.cfg.AS
	if as > 0xffff {
		as = gobgp.AS_TRANS
	}
	m, err := gobgp.NewBGPOpenMessage(uint16(as), uint16(s.cfg.HoldTime/time.Second), s.cfg.RouterID,
		[]gobgp.OptionParameterInterface{gobgp.NewOptionParameterCapability(caps)})
	if err != nil {
		return nil, err
	}
	return m.Serialize()
}
