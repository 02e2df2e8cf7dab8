package netctx

import (
	"cmp"
	"context"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gosnmp/gosnmp"
)

// Target is an exporter that SNMP names, with how to ask it. Community and the passwords are
// secrets: never logged (gosnmp's logger stays off) and never answered by the service.
type Target struct {
	// Address is the exporter's address, as flows name it; Port its SNMP port (161 when 0).
	Address netip.Addr
	Port    uint16
	// Version is "2c" (with Community) or "3" (with User and its protocols).
	Version   string
	Community string
	// User is the SNMPv3 user; AuthProtocol "md5", "sha", "sha256" or "sha512" (empty: no
	// authentication); PrivProtocol "des", "aes" or "aes256" (empty: no privacy).
	User, AuthProtocol, AuthPassword, PrivProtocol, PrivPassword string
}

// The OIDs polled: SNMPv2-MIB sysName, IF-MIB ifName, ifAlias and ifHighSpeed.
const (
	oidSysName     = ".1.3.6.1.2.1.1.5.0"
	oidIfName      = ".1.3.6.1.2.1.31.1.1.1.1"
	oidIfAlias     = ".1.3.6.1.2.1.31.1.1.1.18"
	oidIfHighSpeed = ".1.3.6.1.2.1.31.1.1.1.15"
)

// Bounds of a poll: whatever an exporter answers (an endless walk, a loop, an agent that
// never answers), one poll of it ends within SNMPPollDeadline, reads at most MaxInterfaces
// rows a walk, and holds one of MaxConcurrentPolls places, so that the other exporters are
// polled on time.
const (
	// DefaultSNMPInterval is how often exporters are polled.
	DefaultSNMPInterval = 5 * time.Minute
	// SNMPRetry is how soon an exporter is polled again after it did not answer, when the
	// interval is longer.
	SNMPRetry = 30 * time.Second
	// SNMPTimeout is how long one request waits for an answer (with one retry).
	SNMPTimeout = 2 * time.Second
	// SNMPPollDeadline is the longest one poll of one exporter (its sysName and three walks)
	// lasts; past it the poll fails.
	SNMPPollDeadline = time.Minute
	// MaxInterfaces is the most interfaces kept of one exporter, and the most rows one walk
	// reads: a longer walk fails the poll.
	MaxInterfaces = 100_000
	// MaxConcurrentPolls is the most exporters polled at once.
	MaxConcurrentPolls = 8
)

// Check returns why t cannot be polled, or nil.
func (t *Target) Check() error {
	if !t.Address.IsValid() {
		return fmt.Errorf("address missing")
	}
	switch t.Version {
	case "2c":
		if t.Community == "" {
			return fmt.Errorf("version 2c needs a community")
		}
	case "3":
		if t.User == "" {
			return fmt.Errorf("version 3 needs a user")
		}
		if _, err := authProtocol(t.AuthProtocol); err != nil {
			return err
		}
		if _, err := privProtocol(t.PrivProtocol); err != nil {
			return err
		}
		if t.AuthProtocol == "" && t.PrivProtocol != "" {
			return fmt.Errorf("privacy needs authentication")
		}
		if t.AuthProtocol != "" && len(t.AuthPassword) < 8 || t.PrivProtocol != "" && len(t.PrivPassword) < 8 {
			return fmt.Errorf("SNMPv3 passwords have at least 8 characters")
		}
	default:
		return fmt.Errorf("version %q: want \"2c\" or \"3\"", t.Version)
	}
	return nil
}

func authProtocol(s string) (gosnmp.SnmpV3AuthProtocol, error) {
	switch strings.ToLower(s) {
	case "":
		return gosnmp.NoAuth, nil
	case "md5":
		return gosnmp.MD5, nil
	case "sha":
		return gosnmp.SHA, nil
	case "sha256":
		return gosnmp.SHA256, nil
	case "sha512":
		return gosnmp.SHA512, nil
	}
	return 0, fmt.Errorf("auth protocol %q: want md5, sha, sha256 or sha512", s)
}

func privProtocol(s string) (gosnmp.SnmpV3PrivProtocol, error) {
	switch strings.ToLower(s) {
	case "":
		return gosnmp.NoPriv, nil
	case "des":
		return gosnmp.DES, nil
	case "aes":
		return gosnmp.AES, nil
	case "aes256":
		return gosnmp.AES256, nil
	}
	return 0, fmt.Errorf("privacy protocol %q: want des, aes or aes256", s)
}

// Poll asks t for its sysName and its interfaces' ifName, ifAlias and ifHighSpeed, within
// SNMPPollDeadline (or ctx's end, which stops it at once). Names are made clean as they
// arrive (see Clean): an exporter's and an interface's name at most MaxLabelLength bytes, an
// alias MaxAliasLength. A walk of more than MaxInterfaces rows fails the poll.
func Poll(ctx context.Context, t Target) (Device, error) {
	if err := t.Check(); err != nil {
		return Device{}, err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, SNMPPollDeadline, errPollDeadline)
	defer cancel()
	g := &gosnmp.GoSNMP{
		Context: ctx, Target: t.Address.String(), Port: t.Port, Transport: "udp",
		Timeout: SNMPTimeout, Retries: 1, MaxOids: gosnmp.MaxOids, MaxRepetitions: 50,
		Version: gosnmp.Version2c, Community: t.Community,
	}
	if g.Port == 0 {
		g.Port = 161
	}
	if t.Version == "3" {
		auth, _ := authProtocol(t.AuthProtocol)
		priv, _ := privProtocol(t.PrivProtocol)
		g.Version, g.SecurityModel = gosnmp.Version3, gosnmp.UserSecurityModel
		g.MsgFlags = gosnmp.NoAuthNoPriv
		switch {
		case priv != gosnmp.NoPriv:
			g.MsgFlags = gosnmp.AuthPriv
		case auth != gosnmp.NoAuth:
			g.MsgFlags = gosnmp.AuthNoPriv
		}
		g.SecurityParameters = &gosnmp.UsmSecurityParameters{UserName: t.User,
			AuthenticationProtocol: auth, AuthenticationPassphrase: t.AuthPassword,
			PrivacyProtocol: priv, PrivacyPassphrase: t.PrivPassword}
	}
	if err := g.Connect(); err != nil {
		return Device{}, fmt.Errorf("snmp %s: %w", t.Address, err)
	}
	defer g.Conn.Close()
	// gosnmp checks ctx before each request only: closing the socket also ends the wait for
	// an answer, so that a poll stops at once when its exporter is no longer polled.
	defer context.AfterFunc(ctx, func() { g.Conn.Close() })()
	d := Device{Address: t.Address.Unmap(), Interfaces: map[uint32]Interface{}}
	res, err := g.Get([]string{oidSysName})
	if err != nil {
		return Device{}, fmt.Errorf("snmp %s: sysName: %w", t.Address, pollError(ctx, err))
	}
	for _, v := range res.Variables {
		if v.Name == oidSysName {
			d.Name = text(v.Value, MaxLabelLength)
		}
	}
	for _, oid := range []string{oidIfName, oidIfAlias, oidIfHighSpeed} {
		rows := 0
		err := g.BulkWalk(oid, func(v gosnmp.SnmpPDU) error {
			if rows++; rows > MaxInterfaces {
				return errLongWalk
			}
			d.add(oid, v)
			return nil
		})
		if err != nil {
			return Device{}, fmt.Errorf("snmp %s: walk %s: %w", t.Address, oid, pollError(ctx, err))
		}
	}
	return d, nil
}

var errLongWalk = fmt.Errorf("more than %d rows", MaxInterfaces)

var errPollDeadline = fmt.Errorf("the poll took longer than %v", SNMPPollDeadline)

// pollError is err, or why ctx ended when it did (the socket closed then fails the request
// with a less telling error).
func pollError(ctx context.Context, err error) error {
	switch cause := context.Cause(ctx); {
	case cause == nil:
		return err
	case cause == errPollDeadline:
		return cause
	default:
		return fmt.Errorf("the poll was stopped: %w", cause)
	}
}

// add records the row v of the walk of oid, keeping at most MaxInterfaces interfaces.
func (d *Device) add(oid string, v gosnmp.SnmpPDU) {
	idx, err := strconv.ParseUint(v.Name[strings.LastIndexByte(v.Name, '.')+1:], 10, 32)
	if err != nil {
		return
	}
	i, ok := d.Interfaces[uint32(idx)]
	if !ok && len(d.Interfaces) >= MaxInterfaces {
		return
	}
	i.Index = uint32(idx)
	switch oid {
	case oidIfName:
		i.Name = text(v.Value, MaxLabelLength)
	case oidIfAlias:
		i.Alias = text(v.Value, MaxAliasLength)
	case oidIfHighSpeed:
		i.Speed = gosnmp.ToBigInt(v.Value).Uint64()
	}
	d.Interfaces[uint32(idx)] = i
}

// text is the OCTET STRING v made clean and at most max bytes, or "" when v is of another
// type.
func text(v any, max int) string {
	if b, ok := v.([]byte); ok {
		return Clean(string(b), max)
	}
	return ""
}

// PollStatus is what the last poll of one exporter gave.
type PollStatus struct {
	Address netip.Addr
	// Last is when it was last polled, OK when it last answered.
	Last, OK time.Time
	// Error says why the last poll failed; empty when it answered. The names last found stay
	// in use.
	Error string
	// Interfaces is how many interfaces the last answer named.
	Interfaces int
}

// Poller polls the exporters' names into a Names. Each exporter is polled on its own
// schedule, at most MaxConcurrentPolls at once, so that one that answers slowly, never, or
// without end delays none of the others. It is safe for concurrent use.
type Poller struct {
	names *Names
	slots chan struct{} // a place for each poll under way

	mu       sync.Mutex
	interval time.Duration // SetTargets'; 0: Run's
	every    time.Duration // Run's
	targets  []Target
	status   map[netip.Addr]PollStatus
	run      context.Context // Run's while it runs, else nil
	polls    map[netip.Addr]*devicePoll
}

// devicePoll is the polling of one exporter, until cancelled.
type devicePoll struct {
	target Target
	every  time.Duration
	cancel context.CancelFunc
	done   chan struct{}
}

// NewPoller returns a Poller that records what it finds in names.
func NewPoller(names *Names) *Poller {
	return &Poller{names: names, slots: make(chan struct{}, MaxConcurrentPolls), status: map[netip.Addr]PollStatus{},
		polls: map[netip.Addr]*devicePoll{}}
}

// SetTargets replaces the exporters polled and how often (0 keeps Run's interval). A new or
// changed exporter is polled at once; one no longer listed is no longer polled once
// SetTargets returns (a poll under way is stopped), and its status and the names polled of
// it are dropped (its static names, if any, apply).
func (p *Poller) SetTargets(ts []Target, interval time.Duration) {
	p.mu.Lock()
	p.targets, p.interval = append([]Target(nil), ts...), interval
	stopped := p.apply()
	p.mu.Unlock()
	for _, d := range stopped {
		<-d.done
	}
}

// apply starts polling each target not polled, and stops polling the exporters no longer
// targets, or whose target or interval changed; it returns the polls stopped. The caller
// holds p.mu.
func (p *Poller) apply() (stopped []*devicePoll) {
	if p.run == nil {
		return nil
	}
	every := cmp.Or(p.interval, p.every)
	want := make(map[netip.Addr]Target, len(p.targets))
	for _, t := range p.targets {
		want[t.Address.Unmap()] = t
	}
	for a, d := range p.polls {
		if t, ok := want[a]; !ok || t != d.target || every != d.every {
			d.cancel()
			delete(p.polls, a)
			stopped = append(stopped, d)
			if !ok {
				delete(p.status, a)
				p.names.forget(a)
			}
		}
	}
	for a, t := range want {
		if _, ok := p.polls[a]; ok {
			continue
		}
		ctx, cancel := context.WithCancel(p.run)
		d := &devicePoll{target: t, every: every, cancel: cancel, done: make(chan struct{})}
		p.polls[a] = d
		go p.poll(ctx, d)
	}
	return stopped
}

// Status returns the last poll of each exporter polled.
func (p *Poller) Status() []PollStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]PollStatus, 0, len(p.targets))
	for _, t := range p.targets {
		s, ok := p.status[t.Address.Unmap()]
		if !ok {
			s.Address = t.Address.Unmap()
		}
		out = append(out, s)
	}
	return out
}

// Run polls every target each interval (DefaultSNMPInterval when 0; SNMPRetry after a poll
// that failed), and at once when the targets change, until ctx ends. A failed poll leaves the
// names last found in place and says why in Status.
func (p *Poller) Run(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = DefaultSNMPInterval
	}
	p.mu.Lock()
	p.run, p.every = ctx, interval
	p.apply()
	p.mu.Unlock()
	<-ctx.Done()
	p.mu.Lock()
	polls := p.polls
	p.run, p.polls = nil, map[netip.Addr]*devicePoll{}
	p.mu.Unlock()
	for _, d := range polls {
		<-d.done
	}
}

// poll polls d's exporter every d.every (SNMPRetry after a failure) until ctx ends.
func (p *Poller) poll(ctx context.Context, d *devicePoll) {
	defer close(d.done)
	for {
		select {
		case p.slots <- struct{}{}:
		case <-ctx.Done():
			return
		}
		dev, err := Poll(ctx, d.target)
		<-p.slots
		if !p.record(ctx, d.target, dev, err) {
			return
		}
		wait := d.every
		if err != nil {
			wait = min(wait, SNMPRetry)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// record keeps what a poll of t gave, unless ctx ended (the exporter is no longer polled),
// and reports whether it did.
func (p *Poller) record(ctx context.Context, t Target, d Device, err error) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ctx.Err() != nil {
		return false
	}
	s := p.status[t.Address.Unmap()]
	s.Address, s.Last = t.Address.Unmap(), time.Now().UTC()
	if err != nil {
		s.Error = err.Error()
	} else {
		s.Error, s.OK, s.Interfaces = "", s.Last, len(d.Interfaces)
		p.names.SetPolled(d)
	}
	p.status[s.Address] = s
	return true
}
