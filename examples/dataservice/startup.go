package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/netip"
	"os"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/cluster"
	"github.com/fnapi/fnapi/examples/dataservice/manage"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/wire"
	"go.uber.org/zap"
)

// A start-up failure is reported as one line that says what is wrong and what to do; these
// checks run before anything is opened, so that a wrong flag costs nothing.

// checkFlags checks the flag values that the stores would otherwise refuse later.
func checkFlags(o options) error {
	for _, d := range []struct {
		flag, key string
		value     time.Duration
	}{
		{"-session-idle", manage.KeySessionIdle, o.cfg.Console.SessionIdle},
		{"-session-max", manage.KeySessionMax, o.cfg.Console.SessionMax},
	} {
		if d.value == 0 {
			continue
		}
		if d.value < 0 || d.value%time.Second != 0 {
			return fmt.Errorf("%s %v: must be a positive whole number of seconds, such as 30m or 2h", d.flag, d.value)
		}
		if err := manage.CheckDefault(d.key, wire.FormatDuration(d.value)); err != nil {
			return fmt.Errorf("%s %v: %v; give another value, or leave the flag out for the default", d.flag, d.value, err)
		}
	}
	if o.cfg.Console.SessionIdle > 0 && o.cfg.Console.SessionMax > 0 && o.cfg.Console.SessionIdle > o.cfg.Console.SessionMax {
		return fmt.Errorf("-session-idle %v is longer than -session-max %v: a session is never idle longer than it may live", o.cfg.Console.SessionIdle, o.cfg.Console.SessionMax)
	}
	if o.cfg.Inlet.Consume && o.cfg.Inlet.Queue == "" {
		return errors.New("-consume stores the batches of a queue: give -queue nats://HOST:PORT too")
	}
	if o.cfg.BGP.Listen == "" && (o.cfg.BGP.AS != 0 || len(o.cfg.BGP.Peers) > 0) {
		return errors.New("-bgp-as and -bgp-peers configure the BGP speaker: give -bgp ADDR too")
	}
	if o.cfg.BGP.Listen != "" && (o.cfg.BGP.AS == 0 || len(o.cfg.BGP.Peers) == 0) {
		return errors.New("-bgp ADDR needs -bgp-as N (the service's AS) and -bgp-peers CIDR[,CIDR...] (the routers that may connect)")
	}
	if o.cfg.Inlet.QueueMaxBytes < 1<<20 {
		return fmt.Errorf("-queue-max-bytes %d: must be at least 1048576 (1 MiB)", o.cfg.Inlet.QueueMaxBytes)
	}
	if o.cfg.Inlet.CaptureFilter != "" && len(o.cfg.Inlet.Capture) == 0 && o.cfg.Inlet.CaptureFile == "" {
		return errors.New("-capture-filter filters the capture probe's packets: give -capture IFACE or -capture-file FILE too")
	}
	if o.cfg.Inlet.CaptureSensor.IsValid() && len(o.cfg.Inlet.Capture) == 0 && o.cfg.Inlet.CaptureFile == "" {
		return errors.New("-capture-sensor names the capture probe's sensor: give -capture IFACE or -capture-file FILE too")
	}
	if o.cfg.Inlet.CaptureFile != "" {
		if st, err := os.Stat(o.cfg.Inlet.CaptureFile); err != nil {
			return fmt.Errorf("-capture-file %s: %v", o.cfg.Inlet.CaptureFile, errors.Unwrap(err))
		} else if st.IsDir() {
			return fmt.Errorf("-capture-file %s: a directory, not a pcap or pcapng file", o.cfg.Inlet.CaptureFile)
		}
	}
	if o.cfg.Console.RateLimit < 0 {
		return fmt.Errorf("-rate-limit %d: must be 0 (no limit) or a number of calls per second", o.cfg.Console.RateLimit)
	}
	if o.drain < 0 {
		return fmt.Errorf("-drain %v: must be 0 or a positive duration, such as 3s", o.drain)
	}
	if o.cfg.Postgres != "" {
		if _, err := app.ParsePostgresURL(o.cfg.Postgres); err != nil {
			return err
		}
	}
	if (o.cert == "") != (o.key == "") {
		return errors.New("-cert and -key go together: give both, or neither for a self-signed certificate")
	}
	if o.cert != "" {
		if _, err := tls.LoadX509KeyPair(o.cert, o.key); err != nil {
			return fmt.Errorf("-cert %s and -key %s: %v; give the certificate with its own key, both in PEM", o.cert, o.key, err)
		}
	}
	return nil
}

// prepareData makes the data directory private to the service's user: created 0700, an
// existing one that others may read tightened to 0700, and every file the stores create in it
// 0600 (the process umask becomes 077). It holds the users' password hashes, the sessions, the
// records and the certificate's key.
func prepareData(dir string, log *zap.Logger) error {
	privateUmask()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	st, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil { // not its owner: say so, and go on
			log.Warn("the data directory is open to other users and could not be made private",
				zap.String("dir", dir), zap.Stringer("mode", perm), zap.Error(err))
			return nil
		}
		log.Info("data directory made private to this user", zap.String("dir", dir),
			zap.Stringer("was", perm), zap.Stringer("now", os.FileMode(0o700)))
	}
	return nil
}

// parsePrefixes reads a comma-separated list of CIDR prefixes; a bare address is its own /32
// or /128.
func parsePrefixes(v string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		if a, err := netip.ParseAddr(f); err == nil && a.Zone() == "" {
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			return nil, fmt.Errorf("%q is not an address or a CIDR prefix, such as 10.0.0.5 or 10.0.0.0/24", f)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// parseSensor reads -capture-sensor: one address, without a zone (stores keep none), not the
// unspecified address (which names no exporter); an IPv4-mapped one is taken as IPv4.
func parseSensor(v string) (netip.Addr, error) {
	a, err := netip.ParseAddr(strings.TrimSpace(v))
	switch {
	case err != nil || a.Zone() != "":
		return netip.Addr{}, fmt.Errorf("%q is not an address without a zone, such as 192.0.2.10 or 2001:db8::10", v)
	case a.Unmap().IsUnspecified():
		return netip.Addr{}, fmt.Errorf("%s names no sensor: give the sensor's own address", v)
	}
	return a.Unmap(), nil
}

// listen opens the listening socket, saying what to do when the address is taken.
func listen(addr string) (net.Listener, error) { return listenFor("-addr", addr) }

// listenFor opens the listening socket of the flag named flag.
func listenFor(flag, addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return nil, fmt.Errorf("%s %s: the address is in use by another program (another instance?): stop it, or choose another %s", flag, addr, flag)
	case err != nil:
		return nil, fmt.Errorf("%s %s: %v; give a host:port this machine has, such as 127.0.0.1:8443", flag, addr, err)
	}
	return ln, nil
}

// listening returns the addresses of the listeners lns (nil ones left out), which alert
// webhooks never reach.
func listening(lns ...net.Listener) []netip.AddrPort {
	var out []netip.AddrPort
	for _, ln := range lns {
		if ln == nil {
			continue
		}
		if ap, err := netip.ParseAddrPort(ln.Addr().String()); err == nil {
			out = append(out, ap)
		}
	}
	return out
}

var (
	lockedRE        = regexp.MustCompile(`Could not set lock on file "([^"]+)".*?\(PID (\d+)\)`)
	collectListenRE = regexp.MustCompile(`collect: (netflow|sflow): listen`)
	corruptRE       = regexp.MustCompile(`open(?:ing)? ([^:]+): .*(?:file is not a database|not a valid DuckDB database file|database disk image is malformed)`)
)

// explainOpen turns an error of opening the stores and sockets o names into what the operator
// should do.
func explainOpen(o options, err error) error {
	data, msg := o.cfg.DataDir, err.Error()
	switch {
	case o.cfg.ClickHouse != "" && errors.Is(err, records.ErrUnavailable):
		return fmt.Errorf("-clickhouse: the server does not answer (%v): start it, or check the URL's host and native port (9000 by default)", err)
	case o.cfg.Postgres != "" && cluster.Unreachable(err):
		return fmt.Errorf("-postgres: the server does not answer (%v): start it, or check the URL's host and port", err)
	case collectListenRE.MatchString(msg):
		return fmt.Errorf("%v: give -netflow and -sflow a UDP host:port this machine has, such as :2055 and :6343", err)
	}
	if m := lockedRE.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("-data %s is in use by another instance (process %s holds %s): stop it, or give each instance its own -data", data, m[2], m[1])
	}
	if m := corruptRE.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s is damaged or is not a database of this service: restore it from a backup, or move it away to start with an empty one", m[1])
	}
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.ENOTDIR) ||
		strings.Contains(msg, "readonly database") || strings.Contains(msg, "read-only file system") {
		return fmt.Errorf("-data %s cannot be written (%v): give a directory this user may write", data, err)
	}
	return err
}
