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

// Bounds of a poll.
const (
	// DefaultSNMPInterval is how often exporters are polled.
	DefaultSNMPInterval = 5 * time.Minute
	// SNMPRetry is how soon exporters are polled again after one did not answer, when the
	// interval is longer.
	SNMPRetry = 30 * time.Second
	// SNMPTimeout is how long one request waits for an answer (with one retry).
	SNMPTimeout = 2 * time.Second
	// MaxInterfaces is the most interfaces kept of one exporter.
	MaxInterfaces = 100_000
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

// Poll asks t for its sysName and its interfaces' ifName, ifAlias and ifHighSpeed.
func Poll(ctx context.Context, t Target) (Device, error) {
	if err := t.Check(); err != nil {
		return Device{}, err
	}
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
	d := Device{Address: t.Address.Unmap(), Interfaces: map[uint32]Interface{}}
	res, err := g.Get([]string{oidSysName})
	if err != nil {
		return Device{}, fmt.Errorf("snmp %s: sysName: %w", t.Address, err)
	}
	for _, v := range res.Variables {
		if b, ok := v.Value.([]byte); ok {
			d.Name = string(b)
		}
	}
	for _, oid := range []string{oidIfName, oidIfAlias, oidIfHighSpeed} {
		err := g.BulkWalk(oid, func(v gosnmp.SnmpPDU) error {
			idx, err := strconv.ParseUint(v.Name[strings.LastIndexByte(v.Name, '.')+1:], 10, 32)
			if err != nil {
				return nil
			}
			i, ok := d.Interfaces[uint32(idx)]
			if !ok && len(d.Interfaces) >= MaxInterfaces {
				return nil
			}
			i.Index = uint32(idx)
			switch oid {
			case oidIfName:
				i.Name = text(v.Value)
			case oidIfAlias:
				i.Alias = text(v.Value)
			case oidIfHighSpeed:
				i.Speed = gosnmp.ToBigInt(v.Value).Uint64()
			}
			d.Interfaces[uint32(idx)] = i
			return nil
		})
		if err != nil {
			return Device{}, fmt.Errorf("snmp %s: walk %s: %w", t.Address, oid, err)
		}
	}
	return d, nil
}

func text(v any) string {
	if b, ok := v.([]byte); ok {
		return string(b)
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

// Poller polls the exporters' names into a Names. It is safe for concurrent use.
type Poller struct {
	names *Names

	mu       sync.Mutex
	interval time.Duration // 0: Run's
	targets  []Target
	status   map[netip.Addr]PollStatus
	wake     chan struct{}
}

// NewPoller returns a Poller that records what it finds in names.
func NewPoller(names *Names) *Poller {
	return &Poller{names: names, status: map[netip.Addr]PollStatus{}, wake: make(chan struct{}, 1)}
}

// SetTargets replaces the exporters polled and how often (0 keeps Run's interval), and polls
// them at once.
func (p *Poller) SetTargets(ts []Target, interval time.Duration) {
	p.mu.Lock()
	p.targets, p.interval = append([]Target(nil), ts...), interval
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
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
// that failed), and at once when the targets change, until ctx ends. A failed poll leaves the names last found in place and
// says why in Status.
func (p *Poller) Run(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = DefaultSNMPInterval
	}
	for {
		failed := p.pollAll(ctx)
		p.mu.Lock()
		every := cmp.Or(p.interval, interval)
		p.mu.Unlock()
		if failed {
			every = min(every, SNMPRetry)
		}
		t := time.NewTimer(every)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		case <-p.wake:
			t.Stop()
		}
	}
}

// pollAll polls every target once, and reports whether one did not answer.
func (p *Poller) pollAll(ctx context.Context) (failed bool) {
	p.mu.Lock()
	ts := append([]Target(nil), p.targets...)
	p.mu.Unlock()
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for _, t := range ts {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			d, err := Poll(ctx, t)
			p.mu.Lock()
			defer p.mu.Unlock()
			s := p.status[t.Address.Unmap()]
			s.Address, s.Last = t.Address.Unmap(), time.Now().UTC()
			if err != nil {
				s.Error, failed = err.Error(), true
			} else {
				s.Error, s.OK, s.Interfaces = "", s.Last, len(d.Interfaces)
				p.names.SetPolled(d)
			}
			p.status[s.Address] = s
		}()
	}
	wg.Wait()
	return failed
}
