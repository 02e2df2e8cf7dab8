package netctx

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gosnmp/gosnmp"
)

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
