// Command dataservice is the example data service built on fnapi: traffic records collected
// (the ingest function and a -demo generator), a query language over them, dashboards, widgets,
// users, API keys and configuration, served over HTTPS and WebSocket only.
//
//	dataservice [-addr 127.0.0.1:8443] [-data ./data] [-cert F -key F] [-host NAME] [-demo]
//	            [-session-idle 1h] [-session-max 24h] [-rate-limit 200] [-log-level info]
//	            [-netflow ADDR] [-sflow ADDR]
//	            [-capture IFACE[,IFACE...]] [-capture-file FILE] [-capture-filter EXPR]
//	            [-capture-sensor ADDR]
//	            [-clickhouse URL [-clickhouse-cluster NAME]] [-postgres URL] [-drain 0s]
//	            [-proxy-protocol CIDR[,CIDR...]] [-metrics ADDR]
//	            [-queue nats://HOST:PORT[,HOST:PORT...] [-consume] [-queue-max-bytes N]]
//	            [-bgp ADDR -bgp-as N -bgp-peers CIDR[,CIDR...]]
//
// Every start-up failure (a flag value out of bounds, the data directory in use or not
// writable, a damaged store, the address taken, a certificate without its key) ends the
// process with status 1 and one line on standard error that says what is wrong and what to do.
//
// The standard OpenTelemetry environment variables turn tracing on (see tracing): for example
// OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/examples/dataservice/alerts"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/bgp"
	"github.com/fnapi/fnapi/examples/dataservice/console"
	"github.com/fnapi/fnapi/examples/dataservice/queue"
	"github.com/fnapi/fnapi/transport/proxyproto"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// hosts collects repeated -host flags.
type hosts []string

func (h *hosts) String() string     { return strings.Join(*h, ",") }
func (h *hosts) Set(v string) error { *h = append(*h, v); return nil }

func main() {
	if err := run(); errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	} else if err != nil {
		fmt.Fprintln(os.Stderr, "dataservice:", err)
		os.Exit(1)
	}
}

// options are the command-line flags: the service's configuration tree (cfg), read into once,
// and the flags of the process itself (addresses, certificate, logging, shutdown).
type options struct {
	cfg             app.Config
	addr, cert, key string
	hosts           hosts
	drain           time.Duration
	level           zapcore.Level
	proxies         []netip.Prefix // -proxy-protocol
	metrics         string
}

// newFlagSet returns the service's flags, set into o; docs/running.md's table lists each
// (TestDocsFlags).
func newFlagSet(o *options) *flag.FlagSet {
	o.cfg = app.DefaultConfig("./data") // each flag's default is its field's
	fs := flag.NewFlagSet("dataservice", flag.ContinueOnError)
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8443", "address to serve HTTPS on")
	fs.StringVar(&o.cfg.DataDir, "data", o.cfg.DataDir, "directory of everything the service keeps")
	fs.StringVar(&o.cert, "cert", "", "site certificate (PEM, with its chain); default: a self-signed one in <data>/tls")
	fs.StringVar(&o.key, "key", "", "key of the site certificate (PEM)")
	fs.Var(&o.hosts, "host", "a name the self-signed certificate also covers (repeatable)")
	fs.BoolVar(&o.cfg.Inlet.Demo, "demo", false, "generate realistic synthetic traffic continuously")
	fs.DurationVar(&o.cfg.Console.SessionIdle, "session-idle", 0, "default session idle timeout (default 1h; the session_idle configuration key overrides it)")
	fs.DurationVar(&o.cfg.Console.SessionMax, "session-max", 0, "default session maximum lifetime (default 24h; session_max overrides it)")
	fs.IntVar(&o.cfg.Console.RateLimit, "rate-limit", o.cfg.Console.RateLimit, "calls per second per caller, bursts of twice as many; 0 turns the limit off (the rate_limit configuration key overrides it)")
	fs.StringVar(&o.cfg.Inlet.NetFlow, "netflow", "", "UDP address to collect NetFlow v5, v9 and IPFIX on (e.g. :2055)")
	fs.StringVar(&o.cfg.Inlet.SFlow, "sflow", "", "UDP address to collect sFlow v5 on (e.g. :6343)")
	fs.Func("capture", "IFACE[,IFACE...]: capture packets on these interfaces (AF_PACKET, Linux, root or CAP_NET_RAW) and store a record per TCP conversation and minute with round-trip times, response times and retransmissions", func(v string) error {
		o.cfg.Inlet.Capture = nil
		for _, name := range strings.Split(v, ",") {
			if name = strings.TrimSpace(name); name == "" {
				return errors.New("an empty interface name")
			}
			o.cfg.Inlet.Capture = append(o.cfg.Inlet.Capture, name)
		}
		return nil
	})
	fs.StringVar(&o.cfg.Inlet.CaptureFile, "capture-file", "", "read this pcap or pcapng file once, at full speed, as the capture probe (then the service keeps serving)")
	fs.StringVar(&o.cfg.Inlet.CaptureFilter, "capture-filter", "", "with -capture or -capture-file: a BPF filter in tcpdump's syntax (needs tcpdump), e.g. 'tcp port 443'")
	fs.Func("capture-sensor", "with -capture or -capture-file: the address the probe's records name as their exporter (which sensor saw them); default: the capturing interface's address (else the host's), none for -capture-file", func(v string) error {
		a, err := parseSensor(v)
		o.cfg.Inlet.CaptureSensor = a
		return err
	})
	fs.StringVar(&o.cfg.ClickHouse, "clickhouse", "", "keep the records in ClickHouse: clickhouse://[user[:password]@]host:port/database (native protocol); default: DuckDB in <data>")
	fs.StringVar(&o.cfg.ClickHouseCluster, "clickhouse-cluster", "", "with -clickhouse: the cluster (remote_servers) whose shards hold the records, through a Distributed table")
	fs.StringVar(&o.cfg.Postgres, "postgres", "", "keep users, sessions, keys, dashboards, widgets and configuration in this PostgreSQL database, shared by several nodes: postgres://user[:password]@host:port/db?sslmode=... (default: SQLite files in -data)")
	fs.DurationVar(&o.drain, "drain", 0, "on SIGINT/SIGTERM, answer not ready on "+console.ReadyPath+" this long before shutting down, so that a load balancer stops sending new calls first")
	fs.Func("proxy-protocol", "CIDR[,CIDR...] of the load balancers: their connections carry the PROXY protocol (v1 or v2) header, whose client address counts for login throttling, rate limits, logs and the audit trail; from any other address the header is refused", func(v string) error {
		p, err := parsePrefixes(v)
		o.proxies = p
		return err
	})
	fs.StringVar(&o.metrics, "metrics", "", "address to serve the Prometheus metrics on, over plain HTTP at /metrics (e.g. 127.0.0.1:9464); default: none (the HTTPS port does not serve them: they list the flow exporters' addresses)")
	fs.StringVar(&o.cfg.Inlet.GeoIPASN, "geoip-asn", "", "MaxMind DB file of autonomous systems (GeoLite2-ASN layout) for client.asn and server.asn; read again when it changes on disk")
	fs.StringVar(&o.cfg.Inlet.GeoIPCountry, "geoip-country", "", "MaxMind DB file of countries (GeoLite2-Country or -City layout) for client.country and server.country; read again when it changes on disk")
	fs.Func("webhook-allow", "CIDR[,CIDR...] alert webhooks may reach besides public addresses (checked on the resolved address; loopback, private networks and the service's own addresses are refused otherwise)", func(v string) error {
		p, err := alerts.ParseAllow(v)
		o.cfg.Alerts.WebhookAllow = p
		return err
	})
	fs.Func("smtp", "where alert e-mail goes: smtp://[user[:password]@]host:port?from=address (STARTTLS required; a user without a password reads it from SVC_SMTP_PASSWORD); default: none", func(v string) error {
		c, err := alerts.ParseSMTP(v, os.Getenv)
		o.cfg.Alerts.SMTP = c
		return err
	})
	fs.StringVar(&o.cfg.Inlet.Queue, "queue", "", "nats://HOST:PORT[,HOST:PORT...]: publish the records this node produces to the NATS JetStream stream SVC_RECORDS (created when missing) instead of storing them")
	fs.BoolVar(&o.cfg.Inlet.Consume, "consume", false, "with -queue: store the stream's batches in this node's records store (durable consumer svc-store, shared by every consuming node)")
	fs.Int64Var(&o.cfg.Inlet.QueueMaxBytes, "queue-max-bytes", queue.DefaultMaxBytes, "with -queue: the stream's size limit when this node creates it; past it publishing fails and the collectors count the records lost")
	fs.StringVar(&o.cfg.BGP.Listen, "bgp", "", "ADDR (host:port): accept BGP sessions from the routers of -bgp-peers (passive only): their IPv4 and IPv6 unicast routes give records their AS path and communities, alerts announce blackhole routes and flowspec rules to them; default: none")
	fs.Func("bgp-as", "with -bgp: the service's AS number", func(v string) error {
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil || n == 0 {
			return fmt.Errorf("%q is not an AS number (1 to 4294967295)", v)
		}
		o.cfg.BGP.AS = uint32(n)
		return nil
	})
	fs.Func("bgp-peers", "with -bgp: CIDR[,CIDR...] of the routers that may open a session; any other address is refused", func(v string) error {
		p, err := bgp.ParsePeers(v)
		o.cfg.BGP.Peers = p
		return err
	})
	fs.TextVar(&o.level, "log-level", zapcore.InfoLevel, "log level: debug, info, warn, error")
	fs.SetOutput(io.Discard) // errors are returned, as one line
	return fs
}

// parseFlags reads the command line; a wrong flag is one line of error, -help the usage.
func parseFlags(args []string) (options, error) {
	var o options
	fs := newFlagSet(&o)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(os.Stderr)
			fs.Usage()
			return o, err
		}
		return o, fmt.Errorf("%v; see -help", err)
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q: every setting is a flag (see -help)", fs.Args())
	}
	if err := checkFlags(o); err != nil {
		return o, err
	}
	if o.cfg.Console.RateLimit == 0 { // -rate-limit 0: no limit; a zero Configuration means the default
		o.cfg.Console.RateLimit = console.NoRateLimit
	}
	return o, nil
}

func run() error {
	o, err := parseFlags(os.Args[1:])
	if err != nil {
		return err
	}
	logCfg := zap.NewProductionConfig()
	logCfg.Level = zap.NewAtomicLevelAt(o.level)
	logCfg.Sampling = nil
	log, err := logCfg.Build()
	if err != nil {
		return err
	}
	defer func() { _ = log.Sync() }()

	ln, err := listen(o.addr)
	if err != nil {
		return err
	}
	defer ln.Close() // Serve closes it too; this is for the failures before
	var mln net.Listener
	if o.metrics != "" {
		if mln, err = listenFor("-metrics", o.metrics); err != nil {
			return err
		}
		defer mln.Close()
	}
	if len(o.proxies) > 0 {
		ln = &proxyproto.Listener{Listener: ln, Trusted: o.proxies, Logger: log}
		log.Info("reading the PROXY protocol", zap.Stringers("from", o.proxies))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg := o.cfg
	cfg.Logger = log
	cfg.Alerts.Listen = listening(ln, mln)
	tp, err := tracing(ctx, os.Getenv)
	if err != nil {
		return err
	}
	if tp != nil {
		cfg.TracerProvider = tp
		log.Info("tracing: exporting spans over OTLP/HTTP")
		defer func() { // after the app has closed: its last spans are flushed
			flushCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := tp.Shutdown(flushCtx); err != nil {
				log.Warn("tracing: flushing spans", zap.Error(err))
			}
		}()
	}
	if err := prepareData(o.cfg.DataDir, log); err != nil {
		return explainOpen(o, err)
	}
	a, err := app.Open(ctx, cfg)
	if err != nil {
		return explainOpen(o, err)
	}
	serveCtx, stopServing := context.WithCancel(context.Background())
	defer stopServing()
	metricsDone := make(chan error, 1)
	if mln != nil {
		// Logged before the HTTPS ready line, so that whoever waits for that line knows both.
		log.Info("serving metrics", zap.String("url", "http://"+mln.Addr().String()+"/metrics"))
		go func() { metricsDone <- serveMetrics(serveCtx, mln, a.Handler()) }()
	} else {
		close(metricsDone)
	}
	srv := &fnapi.Server{
		Handler: publicHandler(a.Handler()), CertFile: o.cert, KeyFile: o.key,
		DataDir: o.cfg.DataDir, Hosts: o.hosts, Logger: log,
	}
	go func() {
		select {
		case <-ctx.Done(): // SIGINT or SIGTERM
		case <-serveCtx.Done():
			return
		}
		a.Drain() // not ready, so that a load balancer moves new connections away first
		select {  // the drain period, unless serving already ended
		case <-time.After(o.drain):
		case <-serveCtx.Done():
		}
		stopServing()
	}()
	serveErr := srv.Serve(serveCtx, ln) // in-flight calls finish
	stopServing()
	serveErr = errors.Join(serveErr, <-metricsDone)
	closeCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	closeErr := a.Close(closeCtx)
	if serveErr != nil {
		return explainOpen(o, serveErr)
	}
	if closeErr == nil {
		log.Info("stopped")
	}
	return closeErr
}
