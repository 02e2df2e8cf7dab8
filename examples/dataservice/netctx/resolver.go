package netctx

import (
	"net/netip"
	"sync/atomic"
)

// Flow is what a Resolver reads of a record.
type Flow struct {
	Client, Server         netip.Addr
	ClientPort, ServerPort uint16
	// Protocol is the IP protocol number.
	Protocol uint8
	// Exporter is the address of the device that exported the record; InIf and OutIf its
	// interface indexes (0 when unknown).
	Exporter    netip.Addr
	InIf, OutIf uint32
}

// Context is a record's context, as a Resolver answers it. Empty strings and zero values are
// unknown (null in answers).
type Context struct {
	// Client and Server are where the record's addresses are.
	Client, Server Place
	// Application is the operator's application, the built-in name by port, or Unknown:
	// never a name learned from traffic (a server's name, which anyone sending packets
	// chooses), so that applications are as many as the operator and the built-in table name.
	Application string
	// Exporter is the exporter's name.
	Exporter string
	// InIf and OutIf name the interfaces (Index is the flow's, even when nothing names it).
	InIf, OutIf Interface
}

// Place is where an address is, one side of a Context (records.Place is what a record keeps
// of it).
type Place struct {
	// Zone is the operator's zone holding the address; Other outside every zone.
	Zone string
	// ASN is the autonomous system announcing the address.
	ASN ASN
	// Country is the ISO 3166 alpha-2 code of the address's country.
	Country string
}

// Resolver answers the Context of records. It is safe for concurrent use: Resolve never
// allocates and never waits on Set, which swaps the operator's zones and applications in one
// step.
type Resolver struct {
	table   atomic.Pointer[table]
	builtin func(proto uint8, port uint16) string
	asn     *GeoFile
	country *GeoFile
	names   *Names
}

// table is the operator's zones and applications, swapped together.
type table struct {
	zones *Zones
	apps  *Applications
}

// Option configures NewResolver.
type Option func(*Resolver)

// WithBuiltin sets the built-in application names by protocol and server port, used when no
// rule of the operator matches; a name of Unknown (or "") means none. Default: none.
func WithBuiltin(fn func(proto uint8, port uint16) string) Option {
	return func(r *Resolver) { r.builtin = fn }
}

// WithGeoIP sets the MaxMind DB files of autonomous systems and countries; either may be
// nil. Default: none, and every ASN and country is unknown.
func WithGeoIP(asn, country *GeoFile) Option {
	return func(r *Resolver) { r.asn, r.country = asn, country }
}

// WithNames sets where exporters' and interfaces' names come from. Default: none.
func WithNames(n *Names) Option {
	return func(r *Resolver) { r.names = n }
}

// NewResolver returns a Resolver without zones nor applications.
func NewResolver(opts ...Option) *Resolver {
	r := &Resolver{}
	for _, o := range opts {
		o(r)
	}
	r.table.Store(&table{zones: &Zones{}, apps: &Applications{}})
	return r
}

// Set checks zones and applications together (see NewZones and NewApplications) and, when
// both are valid, makes them the Resolver's in one step; otherwise it keeps the previous ones
// and returns the error.
func (r *Resolver) Set(zones []Zone, apps []Application) error {
	z, err := NewZones(zones)
	if err != nil {
		return err
	}
	a, err := NewApplications(apps, z)
	if err != nil {
		return err
	}
	r.table.Store(&table{zones: z, apps: a})
	return nil
}

// Zones returns the zones in use.
func (r *Resolver) Zones() *Zones { return r.table.Load().zones }

// Resolve fills c with f's context.
func (r *Resolver) Resolve(f *Flow, c *Context) {
	t := r.table.Load()
	r.place(t, f.Client, &c.Client)
	r.place(t, f.Server, &c.Server)
	c.Application = r.application(t, f, c)
	d := r.names.device(f.Exporter)
	c.Exporter = ""
	if d != nil {
		c.Exporter = d.Name
	}
	c.InIf, c.OutIf = d.iface(f.InIf), d.iface(f.OutIf)
}

// place sets p to where a is: its zone in t, its autonomous system and country.
func (r *Resolver) place(t *table, a netip.Addr, p *Place) {
	p.Zone = t.zones.Lookup(a)
	p.ASN, p.Country = r.geo(a)
}

// ASName returns the name the GeoIP ASN file gives AS number n, "" when it names none or
// there is no file (GeoFile.ASName).
func (r *Resolver) ASName(n uint32) string { return r.asn.ASName(n) }

// geo returns a's autonomous system and country.
func (r *Resolver) geo(a netip.Addr) (ASN, string) {
	a = a.Unmap()
	if !Public(a) {
		return ASN{}, ""
	}
	return r.asn.asn(a), r.country.country(a)
}

// application is, in this order: the operator's most specific rule, the built-in name by
// port, Unknown.
func (r *Resolver) application(t *table, f *Flow, c *Context) string {
	if name := t.apps.Match(f, c.Server.Zone, c.Client.Zone); name != "" {
		return name
	}
	if r.builtin != nil {
		if name := r.builtin(f.Protocol, f.ServerPort); name != "" && name != Unknown {
			return name
		}
	}
	return Unknown
}
