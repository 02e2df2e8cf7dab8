package inlet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/capture"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"go.uber.org/zap"
)

// Bounds of the capture pipeline.
const (
	// captureBatch is the most records one ingest of the probe stores.
	captureBatch = 1000
	// captureFlushEvery is the longest a record the probe emitted waits to be stored.
	captureFlushEvery = time.Second
)

// capturing is the capture probe of -capture and -capture-file: one source per interface (or
// the file), each read by a capture.Probe into its own Table, whose records go to the store in
// batches. Its counters are read by collector-status and /metrics.
type capturing struct {
	sources []captureSource
	filter  *capture.Filter // for files; live sources had it attached by the kernel
	// Counters: packets the tables saw, drops of the kernel rings (or oversized file frames),
	// conversations evicted from full tables, records emitted and stored, and records the
	// store refused (a failed ingest: the batch is lost and logged).
	packets, drops, evicted, records, stored, failed atomic.Uint64
	// invalid counts records no store may hold (a capture file's packets dated before 1970 or
	// more than a day ahead), dropped rather than failing the batch they would be in.
	invalid atomic.Uint64
	// done counts the sources that ended (a file read to its end).
	done atomic.Int64
	// tables are the tables' counters of probeCounters, in its order.
	tables [len(probeCounters)]atomic.Uint64
}

// probeCounters are the tables' counters (capture.Stats) that collector-status and /metrics
// show beside the probe's own: server names left out, and the application layers'.
var probeCounters = [...]struct {
	metric, help string
	stat         func(*capture.Stats) uint64
	status       func(*api.CaptureStatus) *uint64
}{
	{"capture_names_left_out_total", "records without their server name: past the distinct names of an hour",
		func(s *capture.Stats) uint64 { return s.NamesLeftOut }, func(c *api.CaptureStatus) *uint64 { return &c.NamesLeftOut }},
	{"capture_http_records_total", "records of HTTP requests the probe made",
		func(s *capture.Stats) uint64 { return s.HTTPRecords }, func(c *api.CaptureStatus) *uint64 { return &c.HTTP.Records }},
	{"capture_http_unanswered_total", "records of HTTP requests without a response",
		func(s *capture.Stats) uint64 { return s.HTTPUnanswered }, func(c *api.CaptureStatus) *uint64 { return &c.HTTP.Unanswered }},
	{"capture_http_orphan_responses_total", "HTTP responses to no request seen (not recorded)",
		func(s *capture.Stats) uint64 { return s.HTTPOrphans }, func(c *api.CaptureStatus) *uint64 { return &c.HTTP.Orphans }},
	{"capture_http_given_up_total", "HTTP connections no longer followed (lost segments, header blocks past 4 KiB, more than 8 requests waiting)",
		func(s *capture.Stats) uint64 { return s.HTTPGivenUp }, func(c *api.CaptureStatus) *uint64 { return &c.HTTP.GivenUp }},
	{"capture_http_gaps_total", "of the HTTP connections no longer followed, those for a segment missing",
		func(s *capture.Stats) uint64 { return s.HTTPGaps }, func(c *api.CaptureStatus) *uint64 { return &c.HTTP.Gaps }},
	{"capture_http_too_long_total", "of the HTTP connections no longer followed, those for a header block past 4 KiB",
		func(s *capture.Stats) uint64 { return s.HTTPTooLong }, func(c *api.CaptureStatus) *uint64 { return &c.HTTP.TooLong }},
	{"capture_http_paths_left_out_total", "records of HTTP requests whose path reads {other}: past the distinct paths of an hour",
		func(s *capture.Stats) uint64 { return s.HTTPPathsLeftOut }, func(c *api.CaptureStatus) *uint64 { return &c.HTTP.PathsLeftOut }},
	{"capture_dns_records_total", "records of DNS queries the probe made",
		func(s *capture.Stats) uint64 { return s.DNSRecords }, func(c *api.CaptureStatus) *uint64 { return &c.DNS.Records }},
	{"capture_dns_timeouts_total", "records of DNS queries without an answer (rcode timeout)",
		func(s *capture.Stats) uint64 { return s.DNSTimeouts }, func(c *api.CaptureStatus) *uint64 { return &c.DNS.Timeouts }},
	{"capture_dns_forgotten_total", "DNS queries forgotten unanswered, past the queries waiting (not recorded)",
		func(s *capture.Stats) uint64 { return s.DNSForgotten }, func(c *api.CaptureStatus) *uint64 { return &c.DNS.Forgotten }},
	{"capture_dns_names_left_out_total", "records of DNS queries whose name reads {other}: past the distinct names of an hour",
		func(s *capture.Stats) uint64 { return s.DNSNamesLeftOut }, func(c *api.CaptureStatus) *uint64 { return &c.DNS.NamesLeftOut }},
	{"capture_tls_records_total", "records of TLS handshakes the probe made",
		func(s *capture.Stats) uint64 { return s.TLSRecords }, func(c *api.CaptureStatus) *uint64 { return &c.TLS.Records }},
	{"capture_tls_certificates_skipped_total", "TLS certificates not read (a leaf past 64 KiB, or too many bytes buffered)",
		func(s *capture.Stats) uint64 { return s.TLSCertsSkipped }, func(c *api.CaptureStatus) *uint64 { return &c.TLS.CertsSkipped }},
	{"capture_tls_issuers_left_out_total", "records of TLS handshakes whose issuer reads {other}: past the distinct issuers of an hour",
		func(s *capture.Stats) uint64 { return s.TLSIssuersLeftOut }, func(c *api.CaptureStatus) *uint64 { return &c.TLS.IssuersLeftOut }},
}

// captureSource is one source of the probe: an interface or the file.
type captureSource struct {
	name string
	src  capture.Source
	file bool
	// sensor and inIf are the exporter and in_if of the source's records: the sensor's
	// address and the capturing interface's index (0 for a file).
	sensor netip.Addr
	inIf   uint32
}

// openCapture opens the sources cfg names, so that a wrong interface, file or filter fails the
// start with one line; nil without -capture and -capture-file.
func openCapture(ctx context.Context, cfg Configuration) (*capturing, error) {
	if len(cfg.Capture) == 0 && cfg.CaptureFile == "" {
		if cfg.CaptureFilter != "" {
			return nil, errors.New("inlet: -capture-filter needs -capture or -capture-file")
		}
		return nil, nil
	}
	c := &capturing{}
	var live *capture.Filter
	if cfg.CaptureFilter != "" {
		f, err := capture.CompileFilter(ctx, cfg.CaptureFilter, capture.LinkEthernet)
		if err != nil {
			return nil, fmt.Errorf("inlet: -capture-filter: %w", err)
		}
		live = f
	}
	if cfg.CaptureFile != "" {
		src, err := capture.OpenFile(cfg.CaptureFile)
		if err != nil {
			return nil, fmt.Errorf("inlet: -capture-file: %w", err)
		}
		c.sources = append(c.sources, captureSource{name: cfg.CaptureFile, src: src, file: true, sensor: cfg.CaptureSensor})
		if cfg.CaptureFilter != "" {
			// Compiled for the file's link type, which its first frame tells; Ethernet is what
			// the tests and most captures hold.
			c.filter = live
		}
	}
	for _, name := range cfg.Capture {
		src, err := capture.OpenInterface(name, live)
		var ifi *net.Interface
		if err == nil {
			ifi, err = net.InterfaceByName(name)
		}
		if err != nil {
			if src != nil {
				src.Close()
			}
			c.close()
			return nil, fmt.Errorf("inlet: -capture %s: %w", name, err)
		}
		s := captureSource{name: name, src: src, sensor: cfg.CaptureSensor, inIf: uint32(ifi.Index)}
		if !s.sensor.IsValid() {
			s.sensor = sensorAddr(ifi)
		}
		c.sources = append(c.sources, s)
	}
	return c, nil
}

// close closes every source (before they run; a running probe closes its own).
func (c *capturing) close() {
	for _, s := range c.sources {
		s.src.Close()
	}
}

// runCapture reads s until it ends (a file) or ctx is done, storing the records of its
// conversations in batches of at most captureBatch, at least every captureFlushEvery. A full
// batch waits for the store: a live capture that outruns the store loses packets in the
// kernel's ring, counted as drops, never records already made.
func (c *Component) runCapture(ctx context.Context, s captureSource) {
	cs := c.capture
	out := make(chan records.Record, captureBatch)
	stored := make(chan struct{})
	go func() {
		defer close(stored)
		c.storeCaptured(out)
	}()
	var last capture.Stats
	var tbl *capture.Table
	note := func() { // on the probe's goroutine: the table is not safe for concurrent use
		st := tbl.Stats()
		cs.packets.Add(st.Packets - last.Packets)
		cs.evicted.Add(st.Evicted - last.Evicted)
		for i, p := range probeCounters {
			if d := p.stat(&st) - p.stat(&last); d != 0 {
				cs.tables[i].Add(d)
			}
		}
		last = st
	}
	tbl = capture.NewTable(capture.Config{}, func(r capture.Record) {
		cs.records.Add(1)
		if rec, ok := validCaptured(&r, time.Now()); ok {
			rec.Exporter, rec.InIf = s.sensor, s.inIf
			out <- rec
		} else {
			cs.invalid.Add(1)
		}
		note()
	})
	p := &capture.Probe{Source: s.src, Table: tbl, Progress: note} // collector-status counts as it goes
	if s.file {
		p.Filter = cs.filter
	}
	err := p.Run(ctx)
	if ctx.Err() != nil {
		tbl.Flush() // store what is pending before the service stops
	}
	note()
	cs.drops.Add(s.src.Stats().Drops)
	s.src.Close()
	close(out)
	<-stored
	cs.done.Add(1)
	switch {
	case err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF):
		c.log.Error("capture stopped", zap.String("source", s.name), zap.Error(err))
	case s.file:
		c.log.Info("capture file read", zap.String("file", s.name), zap.Uint64("packets", last.Packets), zap.Uint64("records", last.Records))
	}
}

// storeCaptured ingests the records of in, in batches, until in is closed.
func (c *Component) storeCaptured(in <-chan records.Record) {
	cs := c.capture
	batch := make([]records.Record, 0, captureBatch)
	flush := func() {
		if len(batch) == 0 {
			return
		}
		// The service's own context may be done already: store what the probe made.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := c.store.Ingest(ctx, batch); err != nil {
			cs.failed.Add(uint64(len(batch)))
			c.log.Error("capture: storing records", zap.Int("records", len(batch)), zap.Error(err))
		} else {
			cs.stored.Add(uint64(len(batch)))
		}
		batch = batch[:0]
	}
	tick := time.NewTicker(captureFlushEvery)
	defer tick.Stop()
	for {
		select {
		case r, ok := <-in:
			if !ok {
				flush()
				return
			}
			batch = append(batch, r)
			if len(batch) == captureBatch {
				flush()
			}
		case <-tick.C:
			flush()
		}
	}
}

// validCaptured returns the traffic record of r, valid at now: without its server name when
// that is one no record may hold (a control character, too long); ok is false when the record
// is invalid otherwise (its time).
func validCaptured(r *capture.Record, now time.Time) (rec records.Record, ok bool) {
	rec = captureRecord(r)
	if rec.Validate(now) != nil {
		rec.ServerName = ""
	}
	return rec, rec.Validate(now) == nil
}

// captureRecord maps a probe's record to a traffic record (the capture package doc's table):
// its times as they are (records.Timing); the application from the server port.
func captureRecord(r *capture.Record) records.Record {
	side := func(s *capture.Side) records.Endpoint {
		return records.Endpoint{IP: s.IP, Port: s.Port, Bytes: min(s.Bytes, records.MaxCount), Packets: min(s.Packets, records.MaxCount),
			RTT: s.RTT, Retrans: min(s.Retrans, records.MaxCount), ZeroWindows: min(s.ZeroWindows, records.MaxCount)}
	}
	return records.Record{Time: r.Time, Protocol: r.Protocol, Application: records.Application(r.Protocol, r.Server.Port),
		Client: side(&r.Client), Server: side(&r.Server), CT: r.CT, SRT: r.SRT, DTT: r.DTT,
		Resets: min(r.Resets, records.MaxCount), ServerName: r.ServerName, Layer: r.Layer, HTTP: r.HTTP, DNS: r.DNS, TLS: r.TLS}
}

// sensorAddr is the address that names a capturing interface's sensor when -capture-sensor
// does not: the interface's first IPv4 address, else its first IPv6 one that is not link-local;
// for an interface without one (a mirror port often has none), the same of the host's first
// other interface that is up and not loopback, in index order; else none.
func sensorAddr(ifi *net.Interface) netip.Addr {
	if a := ifaceAddr(ifi); a.IsValid() {
		return a
	}
	all, _ := net.Interfaces()
	for i := range all {
		if o := &all[i]; o.Index != ifi.Index && o.Flags&net.FlagUp != 0 && o.Flags&net.FlagLoopback == 0 {
			if a := ifaceAddr(o); a.IsValid() {
				return a
			}
		}
	}
	return netip.Addr{}
}

// ifaceAddr is ifi's first IPv4 address, else its first IPv6 one that is not link-local.
func ifaceAddr(ifi *net.Interface) netip.Addr {
	addrs, _ := ifi.Addrs()
	var v6 netip.Addr
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if !ok {
			continue
		}
		ip, ok := netip.AddrFromSlice(n.IP)
		switch ip = ip.Unmap(); {
		case !ok || ip.IsLoopback() || ip.IsUnspecified() || ip.IsLinkLocalUnicast():
		case ip.Is4():
			return ip
		case !v6.IsValid():
			v6 = ip
		}
	}
	return v6
}

// status is the probe's part of collector-status.
func (c *capturing) status() *api.CaptureStatus {
	st := &api.CaptureStatus{Sources: []string{}, Packets: c.packets.Load(), Drops: c.drops.Load(), Evicted: c.evicted.Load(),
		Records: c.records.Load(), Stored: c.stored.Load(), Failed: c.failed.Load(), Invalid: c.invalid.Load(),
		Finished: int(c.done.Load())}
	for i, p := range probeCounters {
		*p.status(st) = c.tables[i].Load()
	}
	for _, s := range c.sources {
		st.Sources = append(st.Sources, s.name)
		if !s.file {
			st.Drops += s.src.Stats().Drops // live rings count as they go
		}
	}
	return st
}

// metricsHandler adds the probe's counters to what next writes.
func (c *capturing) metricsHandler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		if next != nil {
			next.ServeHTTP(w, r)
		}
		st := c.status()
		write := func(name, help string, v uint64) {
			fmt.Fprintf(w, "# HELP %s Capture probe: %s.\n# TYPE %s counter\n%s %d\n", name, help, name, name, v)
		}
		for _, m := range []struct {
			name, help string
			v          uint64
		}{
			{"capture_packets_total", "packets the conversation tables saw", st.Packets},
			{"capture_drops_total", "packets the kernel's capture rings dropped (the probe did not keep up)", st.Drops},
			{"capture_conversations_evicted_total", "conversations ended early because the table was full", st.Evicted},
			{"capture_records_total", "records the probe made", st.Records},
			{"capture_records_stored_total", "records of the probe stored", st.Stored},
			{"capture_records_failed_total", "records of the probe lost because the store refused their batch", st.Failed},
			{"capture_records_invalid_total", "records of the probe dropped as invalid (times before 1970 or more than a day ahead)", st.Invalid},
		} {
			write(m.name, m.help, m.v)
		}
		for _, p := range probeCounters {
			write(p.metric, p.help, *p.status(st))
		}
	})
}
