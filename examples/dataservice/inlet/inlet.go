package inlet

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/bgp"
	"github.com/fnapi/fnapi/examples/dataservice/cluster"
	"github.com/fnapi/fnapi/examples/dataservice/collect"
	"github.com/fnapi/fnapi/examples/dataservice/manage"
	"github.com/fnapi/fnapi/examples/dataservice/netctx"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/registry"
	"go.uber.org/zap"
)

// Configuration is what the inlet collects. The zero value collects nothing but the ingest
// function's records.
type Configuration struct {
	// NetFlow and SFlow are UDP addresses ("host:port") to collect NetFlow v5/v9/IPFIX and
	// sFlow v5 on (package collect). Default: "" (none).
	NetFlow, SFlow string
	// Collect sets the collector's bounds. Default: the zero value, collect's defaults.
	Collect collect.Limits
	// Capture names the interfaces the capture probe captures on (AF_PACKET, Linux, root or
	// CAP_NET_RAW), CaptureFile a pcap or pcapng file it reads once at full speed, and
	// CaptureFilter a BPF filter in tcpdump's syntax for both (needs tcpdump). Default: none.
	Capture       []string
	CaptureFile   string
	CaptureFilter string
	// CaptureSensor is the address the probe's records name as their exporter, so that the
	// records of several sensors sharing one store say which saw them. Default: for an
	// interface, its address (else the host's, see sensorAddr); none for CaptureFile.
	CaptureSensor netip.Addr
	// GeoIPASN and GeoIPCountry are MaxMind DB files (GeoLite2-ASN, GeoLite2-Country or -City
	// layouts), read again when they change on disk, checked every GeoIPPoll. Default: none
	// (ASNs and countries unknown; with Demo, the demo's files); GeoIPPoll: 0, which is
	// netctx.DefaultPollInterval.
	GeoIPASN, GeoIPCountry string
	GeoIPPoll              time.Duration
	// Demo runs the generator of synthetic traffic (24 hours of backfill, then live); without
	// Dependencies.Routes (no -bgp) the records get their routes from the demo's table
	// (demo.Routes). Default: false.
	Demo bool
	// Queue is the -queue flag, nats://HOST:PORT[,HOST:PORT...]: the records the inlet brings
	// in (and the ingest function's) are published to the JetStream stream SVC_RECORDS
	// (package queue) instead of stored. Consume (-consume) stores the stream's batches in
	// this node's records store. QueueMaxBytes bounds the stream when this node creates it.
	// Default: "" (no queue), false, 0 (queue.DefaultMaxBytes). The assembly (app) opens the
	// queue, since the consumer writes to the records store and the ingest function's store
	// publishes too.
	Queue         string
	Consume       bool
	QueueMaxBytes int64
}

// DefaultConfiguration returns the defaults: no collector, no probe, no GeoIP file, no demo.
func DefaultConfiguration() Configuration { return Configuration{} }

// Capturing reports whether cfg runs the capture probe.
func (cfg Configuration) Capturing() bool { return len(cfg.Capture) > 0 || cfg.CaptureFile != "" }

// Dependencies are what the inlet uses.
type Dependencies struct {
	// Records is where the records go, with their context (Store).
	Records records.Store
	// State keeps the zones and applications (a state.ContextStore); Settings holds the snmp and
	// exporter_names configuration keys the inlet follows.
	State    state.Store
	Settings *manage.Settings
	// Logger receives the inlet's log. Default: none.
	Logger *zap.Logger
	// DataDir is the data directory: the demo writes its MaxMind DB files in its "demo" folder.
	DataDir string
	// Shared is the PostgreSQL URL the nodes of a service share; with it the demo generator runs
	// on one node at a time, under a lease, after calling DemoSetup (the overview and the
	// demo's context, dashboard and rules, which a single node makes before Start).
	Shared    string
	DemoSetup func(context.Context)
	// Queue returns the queue's state for collector-status (-queue), nil without one.
	// Default: nil, no queue.
	Queue func(context.Context) *api.QueueStatus
	// BGP returns the BGP speaker's sessions for collector-status (-bgp), nil without one.
	// Default: nil, no speaker.
	BGP func() []api.BGPPeer
	// Routes gives each record the routes covering its addresses (the BGP speaker, -bgp; a
	// nil *bgp.Speaker is none). Default: nil, no routes.
	Routes Routes
}

// Component is the inlet: what brings records in and gives them their context. It owns the
// flow collectors, the capture probe, the demo generator and the context of records (zones,
// applications, GeoIP, SNMP names), and serves collector-status and the zone and application
// functions.
type Component struct {
	cfg   Configuration
	deps  Dependencies
	log   *zap.Logger
	nctx  *netContext
	store records.Store // Records with context

	flows    *collect.Collector // nil without NetFlow and SFlow
	flowAddr [2]string          // where flows and sFlow are received
	capture  *capturing         // nil without Capture and CaptureFile

	stop   context.CancelFunc
	wg     sync.WaitGroup
	leases []*cluster.Lease
}

// New returns the inlet over deps: it opens the GeoIP files (with Demo and none named, the
// demo's), loads the zones and applications, and follows the snmp and exporter_names keys.
// Nothing is collected before Start.
func New(ctx context.Context, deps Dependencies, cfg Configuration) (*Component, error) {
	if deps.Logger == nil {
		deps.Logger = zap.NewNop()
	}
	c := &Component{cfg: cfg, deps: deps, log: deps.Logger}
	if err := c.demoGeoIP(); err != nil {
		return nil, err
	}
	if cfg.Demo && noNil(deps.Routes) == nil {
		c.deps.Routes = demoRoutes() // without -bgp, the demo's table
	}
	var err error
	if c.nctx, err = c.openContext(ctx); err != nil {
		return nil, err
	}
	c.store = Enrich(deps.Records, c.nctx.resolver, c.deps.Routes)
	return c, nil
}

// Enrich returns st giving each record it stores its context from r and, with routes (nil:
// none), the routes covering its addresses (see contextStore).
func Enrich(st records.Store, r *netctx.Resolver, routes Routes) records.Store {
	return contextStore{Store: st, resolver: r, routes: noNil(routes)}
}

// noNil is routes, or nil for a nil *bgp.Speaker (the service's without -bgp), so that
// Dependencies.Routes takes the speaker as it is.
func noNil(routes Routes) Routes {
	if s, ok := routes.(*bgp.Speaker); ok && s == nil {
		return nil
	}
	return routes
}

// Routes returns the routes the inlet gives records (Dependencies.Routes), nil without.
func (c *Component) Routes() Routes { return noNil(c.deps.Routes) }

// Resolver returns what gives records their context.
func (c *Component) Resolver() *netctx.Resolver { return c.nctx.resolver }

// Resolve gives recs their context as the inlet does when it stores them.
func (c *Component) Resolve(recs []records.Record) { resolve(c.nctx.resolver, c.Routes(), recs) }

// Start listens for flows, opens the capture sources (so that a wrong interface, file or
// filter fails the start with one line) and starts the background work: the probe, SNMP
// polling, the GeoIP files' watch and the demo generator. ctx bounds the start only.
func (c *Component) Start(ctx context.Context) (err error) {
	defer func() {
		if err != nil {
			if c.flows != nil {
				c.flows.Close()
			}
			c.flows = nil
		}
	}()
	if err := c.listenFlows(); err != nil {
		return err
	}
	if c.capture, err = openCapture(ctx, c.cfg); err != nil {
		return err
	}
	run, stop := context.WithCancel(context.Background())
	c.stop = stop
	for _, w := range c.work() {
		c.wg.Go(func() { w(run) })
	}
	if c.cfg.Demo {
		if c.deps.Shared == "" {
			c.wg.Go(func() { c.demo(run) })
		} else {
			l := &cluster.Lease{Name: "demo traffic", Key: demoKey, Run: c.demo, Logger: c.log}
			l.Start(c.deps.Shared)
			c.leases = append(c.leases, l)
		}
	}
	return nil
}

// demoKey is the advisory lock of the demo generator's lease.
const demoKey = 0x66_6e_61_70_69_02

// Stop stores what the collectors received, stops the background work (the probe stores what
// its tables hold) and waits for it.
func (c *Component) Stop() error {
	var err error
	if c.flows != nil {
		err = c.flows.Close() // stores what was received, before the store closes
	}
	if c.stop != nil {
		c.stop()
	}
	for _, l := range c.leases {
		l.Close()
	}
	c.wg.Wait()
	return err
}

// work is the inlet's background work on every node: SNMP polling, the GeoIP files' watch and
// one piece per capture source (a node's probe sees its own links).
func (c *Component) work() []func(context.Context) {
	ws := c.contextWork()
	if c.capture != nil {
		for _, s := range c.capture.sources {
			ws = append(ws, func(ctx context.Context) { c.runCapture(ctx, s) })
		}
	}
	return ws
}

// listenFlows listens for flows on NetFlow and SFlow, when set.
func (c *Component) listenFlows() error {
	if c.cfg.NetFlow == "" && c.cfg.SFlow == "" {
		return nil
	}
	c.flows = collect.New(c.store, c.log, c.cfg.Collect)
	for i, l := range []struct {
		proto collect.Protocol
		addr  string
	}{{collect.NetFlow, c.cfg.NetFlow}, {collect.SFlow, c.cfg.SFlow}} {
		if l.addr == "" {
			continue
		}
		at, err := c.flows.Listen(l.proto, l.addr)
		if err != nil {
			return fmt.Errorf("inlet: %w", err)
		}
		c.flowAddr[i] = at.String()
		c.log.Info("collecting flows", zap.String("protocol", l.proto.String()), zap.Stringer("addr", at))
	}
	return nil
}

// FlowAddrs returns the addresses the NetFlow and sFlow collectors listen on ("" for none), for
// tests that ask for port 0.
func (c *Component) FlowAddrs() (netflow, sflow string) { return c.flowAddr[0], c.flowAddr[1] }

// MetricsHandler adds the collectors' and the probe's figures to what next writes.
func (c *Component) MetricsHandler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := next
		if c.flows != nil {
			h = c.flows.MetricsHandler(h)
		}
		if c.capture != nil {
			h = c.capture.metricsHandler(h)
		}
		h.ServeHTTP(w, r)
	})
}

// Register adds collector-status and the zone and application functions to reg.
func (c *Component) Register(reg *registry.Registry) error {
	return errors.Join(c.registerCollectorStatus(reg), c.registerContext(reg))
}
