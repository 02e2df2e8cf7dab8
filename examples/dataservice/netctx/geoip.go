package netctx

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oschwald/maxminddb-golang/v2"
)

// ASN is an autonomous system: its number and its organisation's name (as the file gives
// it, made clean and at most MaxLabelLength bytes: see Clean). The zero ASN is unknown.
type ASN struct {
	Number uint32
	Name   string
}

// Layouts of a MaxMind DB file.
const (
	// LayoutASN is GeoLite2-ASN's layout (and DB-IP's and IPinfo's files that share it):
	// autonomous_system_number and autonomous_system_organization.
	LayoutASN = "ASN"
	// LayoutCountry is GeoLite2-Country's and GeoLite2-City's: country.iso_code.
	LayoutCountry = "Country"
)

// DefaultPollInterval is how often a GeoIP file is checked for a change on disk.
const DefaultPollInterval = 5 * time.Second

// GeoFile is one MaxMind DB file, read whole into memory and reloaded when it changes on disk
// (its size or modification time): the new file replaces the old atomically once it has been
// read and checked; a file that cannot be read, is truncated, or has another layout leaves the
// previous one in place and is reported by Status. It is safe for concurrent use.
type GeoFile struct {
	path   string
	layout string
	db     atomic.Pointer[geoDB]

	mu     sync.Mutex // guards what follows
	size   int64
	mtime  time.Time
	status GeoStatus
}

// GeoStatus says what a GeoFile holds.
type GeoStatus struct {
	// Path is the file's path.
	Path string
	// Type is the file's database_type ("GeoLite2-ASN", ...).
	Type string
	// Built is when the file says it was built.
	Built time.Time
	// Loaded is when the file in use was read.
	Loaded time.Time
	// Error says why the file on disk is not the one in use; empty when it is.
	Error string
}

// geoDB is one read file: its IPv4 networks flattened into ranges of decoded records (the
// lookup of most traffic, without locks nor the file's tree walk), and for IPv6 the file with
// a cache of decoded records by their offset in the file.
type geoDB struct {
	r         *maxminddb.Reader
	v4        *ranges4
	v4ASNs    []ASN
	v4Country []string
	// names are the organisations' names of the file's IPv4 networks by AS number (ASName).
	names map[uint32]string

	mu       sync.RWMutex
	asns     map[uintptr]ASN
	countrys map[uintptr]string
}

// maxCached bounds a file's decoded records kept (GeoLite2-ASN has about 80,000; past the
// bound records are decoded each time, allocating).
const maxCached = 1 << 20

// OpenGeoFile reads the MaxMind DB file at path, which must have the given layout (LayoutASN
// or LayoutCountry).
func OpenGeoFile(path, layout string) (*GeoFile, error) {
	g := &GeoFile{path: path, layout: layout}
	if err := g.load(); err != nil {
		return nil, err
	}
	return g, nil
}

// load reads the file when it changed since the last read.
func (g *GeoFile) load() error {
	fi, err := os.Stat(g.path)
	if err != nil {
		return g.fail(err)
	}
	g.mu.Lock()
	same := fi.Size() == g.size && fi.ModTime().Equal(g.mtime) && g.db.Load() != nil
	g.mu.Unlock()
	if same {
		return nil
	}
	b, err := os.ReadFile(g.path)
	if err != nil {
		return g.fail(err)
	}
	db, err := openGeoDB(b, g.layout)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.size, g.mtime = fi.Size(), fi.ModTime()
	if err != nil {
		g.status.Path, g.status.Error = g.path, err.Error()
		return fmt.Errorf("geoip: %s: %w", g.path, err)
	}
	g.db.Store(db)
	g.status = GeoStatus{Path: g.path, Type: db.r.Metadata.DatabaseType, Built: db.r.Metadata.BuildTime().UTC(), Loaded: time.Now().UTC()}
	return nil
}

func (g *GeoFile) fail(err error) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.status.Path, g.status.Error = g.path, err.Error()
	return fmt.Errorf("geoip: %w", err)
}

func openGeoDB(b []byte, layout string) (*geoDB, error) {
	r, err := maxminddb.OpenBytes(b)
	if err != nil {
		return nil, fmt.Errorf("not a MaxMind DB file: %w", err)
	}
	if err := r.Verify(); err != nil {
		return nil, fmt.Errorf("damaged or truncated MaxMind DB file: %w", err)
	}
	t := r.Metadata.DatabaseType
	ok := false
	switch layout {
	case LayoutASN:
		ok = strings.Contains(strings.ToUpper(t), "ASN")
	case LayoutCountry:
		ok = strings.Contains(t, "Country") || strings.Contains(t, "City")
	}
	if !ok {
		return nil, fmt.Errorf("database type %q is not of the %s layout (want GeoLite2-%s or a file sharing its layout)", t, layout, layout)
	}
	db := &geoDB{r: r, asns: map[uintptr]ASN{}, countrys: map[uintptr]string{}}
	if err := db.flatten(layout); err != nil {
		return nil, err
	}
	return db, nil
}

// flatten reads every IPv4 network of the file into db.v4, decoding each record once.
func (db *geoDB) flatten(layout string) error {
	var b rangeBuilder
	byOffset := map[uintptr]int32{}
	for res := range db.r.NetworksWithin(netip.MustParsePrefix("0.0.0.0/0")) {
		if err := res.Err(); err != nil {
			return fmt.Errorf("damaged MaxMind DB file: %w", err)
		}
		p := res.Prefix()
		if !p.Addr().Is4() {
			continue
		}
		i, ok := byOffset[res.Offset()]
		if !ok {
			i = int32(len(byOffset))
			byOffset[res.Offset()] = i
			switch layout {
			case LayoutASN:
				db.v4ASNs = append(db.v4ASNs, decodeASN(res))
			default:
				db.v4Country = append(db.v4Country, decodeCountry(res))
			}
		}
		first := p.Masked().Addr().As4()
		start := uint32(first[0])<<24 | uint32(first[1])<<16 | uint32(first[2])<<8 | uint32(first[3])
		last := start | uint32(uint64(1)<<(32-p.Bits())-1)
		b.span(start, last, i)
	}
	db.v4 = b.build()
	if layout == LayoutASN {
		db.names = make(map[uint32]string, len(db.v4ASNs))
		for _, a := range db.v4ASNs {
			if a.Number != 0 && a.Name != "" {
				db.names[a.Number] = a.Name
			}
		}
	}
	return nil
}

func decodeASN(res maxminddb.Result) ASN {
	var rec struct {
		Number uint32 `maxminddb:"autonomous_system_number"`
		Name   string `maxminddb:"autonomous_system_organization"`
	}
	if res.Decode(&rec) != nil {
		return ASN{}
	}
	// The operator's file is input as a device's answer is: a name of any length or bytes
	// would be copied into every record and answer of its addresses.
	return ASN{Number: rec.Number, Name: Clean(rec.Name, MaxLabelLength)}
}

func decodeCountry(res maxminddb.Result) string {
	var rec struct {
		Country struct {
			ISOCode string `maxminddb:"iso_code"`
		} `maxminddb:"country"`
	}
	if res.Decode(&rec) != nil {
		return ""
	}
	v := rec.Country.ISOCode
	if len(v) != 2 || v[0] < 'A' || v[0] > 'Z' || v[1] < 'A' || v[1] > 'Z' {
		return "" // not an ISO code: never a wrong country
	}
	return v
}

// v4 returns the index of a's record in the flattened IPv4 networks, or -1.
func (db *geoDB) v4Index(a netip.Addr) int32 {
	b := a.As4()
	return db.v4.lookup(uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]))
}

// Status says what the file holds and whether the file on disk could not be read.
func (g *GeoFile) Status() GeoStatus {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.status
}

// Watch checks the file every interval (DefaultPollInterval when 0) and reloads it when it
// changed, until ctx ends. onError, when not nil, hears each failed reload.
func (g *GeoFile) Watch(ctx context.Context, interval time.Duration, onError func(error)) {
	if interval <= 0 {
		interval = DefaultPollInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := g.load(); err != nil && onError != nil {
				onError(err)
			}
		}
	}
}

// Public reports whether a is an address a GeoIP file may place: not private, loopback,
// link-local, multicast, unspecified, shared (100.64.0.0/10), "this network" (0.0.0.0/8) or
// reserved (240.0.0.0/4).
func Public(a netip.Addr) bool {
	a = a.Unmap()
	if a.Is4() { // the common case, without netip's general checks
		b := a.As4()
		switch {
		case b[0] == 10, b[0] == 127, b[0] == 0, b[0] >= 224,
			b[0] == 172 && b[1]&0xf0 == 16, b[0] == 192 && b[1] == 168,
			b[0] == 169 && b[1] == 254, b[0] == 100 && b[1]&0xc0 == 64:
			return false
		}
		return true
	}
	return a.IsValid() && a.IsGlobalUnicast() && !a.IsPrivate() && !cgnat.Contains(a)
}

var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// ASN returns the autonomous system of a, or the zero ASN when unknown or not Public. The
// GeoFile must have the ASN layout.
func (g *GeoFile) ASN(a netip.Addr) ASN {
	if a = a.Unmap(); !Public(a) {
		return ASN{}
	}
	return g.asn(a)
}

// asn is ASN for an unmapped Public address.
func (g *GeoFile) asn(a netip.Addr) ASN {
	if g == nil {
		return ASN{}
	}
	db := g.db.Load()
	if a.Is4() {
		if i := db.v4Index(a); i >= 0 {
			return db.v4ASNs[i]
		}
		return ASN{}
	}
	return lookup(db, a, db.asns, decodeASN)
}

// ASName returns the name the file gives AS number n (an organisation announcing IPv4
// networks in it), "" when it names none: for an AS known otherwise (a BGP route's origin).
// The GeoFile must have the ASN layout.
func (g *GeoFile) ASName(n uint32) string {
	if g == nil {
		return ""
	}
	return g.db.Load().names[n]
}

// Country returns the ISO 3166 alpha-2 code of a's country, or "" when unknown or not Public.
// The GeoFile must have the Country layout.
func (g *GeoFile) Country(a netip.Addr) string {
	if a = a.Unmap(); !Public(a) {
		return ""
	}
	return g.country(a)
}

// country is Country for an unmapped Public address.
func (g *GeoFile) country(a netip.Addr) string {
	if g == nil {
		return ""
	}
	db := g.db.Load()
	if a.Is4() {
		if i := db.v4Index(a); i >= 0 {
			return db.v4Country[i]
		}
		return ""
	}
	return lookup(db, a, db.countrys, decodeCountry)
}

// lookup finds a (an IPv6 address) in db's tree: the zero T when it is not there, else what
// decode reads of its record, decoded once per record and kept in cache (at most maxCached).
func lookup[T any](db *geoDB, a netip.Addr, cache map[uintptr]T, decode func(maxminddb.Result) T) T {
	var zero T
	res := db.r.Lookup(a)
	if !res.Found() {
		return zero
	}
	off := res.Offset()
	db.mu.RLock()
	v, ok := cache[off]
	db.mu.RUnlock()
	if ok {
		return v
	}
	v = decode(res)
	db.mu.Lock()
	if len(cache) < maxCached {
		cache[off] = v
	}
	db.mu.Unlock()
	return v
}
