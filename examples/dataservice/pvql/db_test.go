package pvql

import (
	"context"
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records/duckdb"

	"github.com/fnapi/fnapi/examples/dataservice/histogram"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// rec is a traffic record as the tests generate it and the reference computation reads it.
type rec struct {
	time             int64
	proto            uint8
	app              string
	cIP, sIP         netip.Addr
	cPort, sPort     uint16
	cBytes, cPackets uint64
	sBytes, sPackets uint64
	exporter         netip.Addr // the zero Addr: none
	// The capture probe's fields: times as microsecond sums and sample counts.
	cRTT, cRTTN, sRTT, sRTTN, ct, ctN, srt, srtN, dtt, dttN uint64
	cRetrans, sRetrans, resets, cZero, sZero                uint64
	name                                                    string // server name; "" none
	// The context the service resolves at ingest (records.Place, names): "" and 0 unknown.
	cZone, sZone, cCountry, sCountry, cASName, sASName string
	cASN, sASN                                         uint32
	expName                                            string
	inIf, outIf                                        uint32
	inName, inAlias, outName, outAlias                 string
	// The routes covering the sides (records.Place's ASPath and Communities): nil none.
	cPath, sPath   []uint32
	cComms, sComms []string
	// The samples of each time, in microseconds: kept as histograms when time is even, else
	// averaged (as ingest without histograms keeps them).
	cRTTS, sRTTS, ctS, srtS, dttS []uint64
	// The layer of the record and its keys (genLayerRecords), zero in the transport's.
	layer records.Layer
	http  records.HTTP
	dns   records.DNS
	tls   records.TLS
}

// hist is the histogram of samples in microseconds, or none when the record's samples come
// averaged (odd times).
func (r *rec) hist(samples []uint64) histogram.Histogram {
	var h histogram.Histogram
	if r.time%2 == 0 {
		for _, us := range samples {
			h.Add(float64(us) / 1e6)
		}
	}
	return h
}

// openDB opens a DuckDB store in a temporary directory holding recs.
func openDB(tb testing.TB, recs []rec) *duckdb.Store {
	tb.Helper()
	s, err := duckdb.Open(context.Background(), tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	load(tb, s, recs)
	return s
}

// load ingests recs into s.
func load(tb testing.TB, s records.Store, recs []rec) {
	tb.Helper()
	out := make([]records.Record, len(recs))
	for i, r := range recs {
		out[i] = records.Record{Time: r.time, Protocol: r.proto, Application: r.app,
			Client:   records.Endpoint{IP: r.cIP, Port: r.cPort, Bytes: r.cBytes, Packets: r.cPackets},
			Server:   records.Endpoint{IP: r.sIP, Port: r.sPort, Bytes: r.sBytes, Packets: r.sPackets},
			Exporter: r.exporter, InIf: r.inIf, OutIf: r.outIf,
			ExporterName: r.expName, InIfName: r.inName, InIfAlias: r.inAlias, OutIfName: r.outName, OutIfAlias: r.outAlias,
			CT: records.Timing{Sum: r.ct, Samples: r.ctN, Hist: r.hist(r.ctS)}, SRT: records.Timing{Sum: r.srt, Samples: r.srtN, Hist: r.hist(r.srtS)},
			DTT: records.Timing{Sum: r.dtt, Samples: r.dttN, Hist: r.hist(r.dttS)}, Resets: r.resets, ServerName: r.name}
		out[i].Client.RTT, out[i].Client.Retrans = records.Timing{Sum: r.cRTT, Samples: r.cRTTN, Hist: r.hist(r.cRTTS)}, r.cRetrans
		out[i].Server.RTT, out[i].Server.Retrans = records.Timing{Sum: r.sRTT, Samples: r.sRTTN, Hist: r.hist(r.sRTTS)}, r.sRetrans
		out[i].Client.ZeroWindows, out[i].Server.ZeroWindows = r.cZero, r.sZero
		out[i].Layer, out[i].HTTP, out[i].DNS, out[i].TLS = r.layer, r.http, r.dns, r.tls
		out[i].Client.Place = records.Place{Zone: r.cZone, ASN: r.cASN, ASName: r.cASName, Country: r.cCountry}
		out[i].Server.Place = records.Place{Zone: r.sZone, ASN: r.sASN, ASName: r.sASName, Country: r.sCountry}
		out[i].Client.ASPath, out[i].Client.Communities = r.cPath, r.cComms
		out[i].Server.ASPath, out[i].Server.Communities = r.sPath, r.sComms
	}
	for len(out) > 0 {
		n := min(len(out), 100_000)
		if err := s.Ingest(context.Background(), out[:n]); err != nil {
			tb.Fatal(err)
		}
		out = out[n:]
	}
}

// Address pools: IPv4 (stored mapped), IPv6 with a low and a high first half (above
// math.MaxInt64, which exercises unsigned parameters).
var (
	testClients = addrs("10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.9", "10.0.0.17", "10.1.2.3",
		"192.168.1.10", "192.168.1.11", "2001:db8::1", "2001:db8::2", "2001:db8::5", "fd00::1")
	testServers = addrs("93.184.216.34", "8.8.8.8", "1.1.1.1", "10.0.0.2", "2001:db8:ffff::1", "fd00::53", "ff02::1")
	testApps    = []string{"https", "http", "dns", "ssh", "ntp", "unknown"}
	// testExporters holds records without exporter (the zero Addr) and 192.0.2.1 most often.
	testExporters = append(addrs("192.0.2.1", "192.0.2.1", "192.0.2.2", "2001:db8:e::1"), netip.Addr{})
)

func addrs(s ...string) []netip.Addr {
	out := make([]netip.Addr, len(s))
	for i, a := range s {
		out[i] = netip.MustParseAddr(a)
	}
	return out
}

// genRecords makes n records with times in [from, to), drawn from small pools so that
// groups collide. ICMP records have a silent server (zero server bytes and packets), which
// gives divisions by zero.
func genRecords(seed uint64, n int, from, to int64) []rec {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	protos := []uint8{records.TCP, records.TCP, records.TCP, records.UDP, records.UDP, records.ICMP, 47}
	probe := rand.New(rand.NewPCG(seed^0xc0ffee, seed)) // the capture fields' own, so the rest stays as it was
	place := rand.New(rand.NewPCG(seed^0x5eed, seed))   // the context's own
	route := rand.New(rand.NewPCG(seed^0xb69, seed))    // the routes' own
	out := make([]rec, n)
	for i := range out {
		r := rec{
			time:     from + rng.Int64N(to-from),
			proto:    protos[rng.IntN(len(protos))],
			app:      testApps[rng.IntN(len(testApps))],
			cIP:      testClients[rng.IntN(len(testClients))],
			sIP:      testServers[rng.IntN(len(testServers))],
			cPort:    uint16(1024 + rng.IntN(8)),
			sPort:    []uint16{22, 53, 80, 123, 443, 8080}[rng.IntN(6)],
			cBytes:   rng.Uint64N(100_000),
			cPackets: rng.Uint64N(100),
			sBytes:   rng.Uint64N(1_000_000),
			sPackets: 1 + rng.Uint64N(1000),
			exporter: testExporters[rng.IntN(len(testExporters))],
		}
		if r.proto == records.ICMP {
			r.sBytes, r.sPackets = 0, 0
		}
		if r.proto == records.TCP {
			capture(&r, probe)
		}
		netContext(&r, place)
		routes(&r, route)
		out[i] = r
	}
	return out
}

// testNames are the server names of TCP records, "" (none) the most often.
var testNames = []string{"", "", "www.example.com", "api.example.com", "cdn.example.net"}

// Pools of the context: zones nested by "/" ("" is other), autonomous systems (one number
// known under two names, as a GeoIP file replaced may name it), countries, interfaces.
var (
	testZones = []string{"", "", "HQ", "HQ/Paris", "Customers", "Customers/ACME", "Customers/ACME/Lab", "CustomersX"}
	testASNs  = []struct {
		n    uint32
		name string
	}{{0, ""}, {0, ""}, {15169, "GOOGLE"}, {13335, "CLOUDFLARENET"}, {13335, "CLOUDFLARE"}, {64500, ""}}
	testCountries = []string{"", "", "FR", "US", "DE"}
	testIfs       = []struct {
		index       uint32
		name, alias string
	}{{0, "", ""}, {1, "ge-0/0/1", "uplink"}, {2, "ge-0/0/2", ""}, {3, "", ""}}
	testExporterNames = []string{"", "edge1", "edge2"}
)

// netContext fills r's context from rng, as the service resolves it.
func netContext(r *rec, rng *rand.Rand) {
	r.cZone, r.sZone = testZones[rng.IntN(len(testZones))], testZones[rng.IntN(len(testZones))]
	ca, sa := testASNs[rng.IntN(len(testASNs))], testASNs[rng.IntN(len(testASNs))]
	r.cASN, r.cASName, r.sASN, r.sASName = ca.n, ca.name, sa.n, sa.name
	r.cCountry, r.sCountry = testCountries[rng.IntN(len(testCountries))], testCountries[rng.IntN(len(testCountries))]
	in, out := testIfs[rng.IntN(len(testIfs))], testIfs[rng.IntN(len(testIfs))]
	r.inIf, r.inName, r.inAlias = in.index, in.name, in.alias
	r.outIf, r.outName, r.outAlias = out.index, out.name, out.alias
	r.expName = testExporterNames[rng.IntN(len(testExporterNames))]
}

// testRoutes are the routes of the sides: none the most often, a path without communities,
// a prepended one, large communities, a route of the router's own AS (no path).
var testRoutes = []struct {
	path  []uint32
	comms []string
}{{nil, nil}, {nil, nil}, {[]uint32{64500, 15169}, nil}, {[]uint32{64501, 64501, 13335}, []string{"64501:100", "65000:200"}},
	{[]uint32{64500, 64510, 64520}, []string{"65000:200", "4200000000:1:2"}}, {nil, []string{"65000:300"}}}

// routes fills r's routes from rng.
func routes(r *rec, rng *rand.Rand) {
	c, s := testRoutes[rng.IntN(len(testRoutes))], testRoutes[rng.IntN(len(testRoutes))]
	r.cPath, r.cComms, r.sPath, r.sComms = c.path, c.comms, s.path, s.comms
}

// capture fills r's capture probe fields from rng as a probe would, some without samples.
func capture(r *rec, rng *rand.Rand) {
	timing := func(max uint64) (sum, n uint64, samples []uint64) {
		n = rng.Uint64N(4)
		for range n {
			v := rng.Uint64N(max)
			sum += v
			samples = append(samples, v)
		}
		return sum, n, samples
	}
	r.cRTT, r.cRTTN, r.cRTTS = timing(2_000)
	r.sRTT, r.sRTTN, r.sRTTS = timing(80_000)
	r.ct, r.ctN, r.ctS = timing(100_000)
	r.srt, r.srtN, r.srtS = timing(500_000)
	r.dtt, r.dttN, r.dttS = timing(50_000)
	r.cRetrans, r.sRetrans, r.resets = rng.Uint64N(3), rng.Uint64N(5), rng.Uint64N(2)
	r.name = testNames[rng.IntN(len(testNames))]
	r.cZero, r.sZero = rng.Uint64N(2), rng.Uint64N(3)
}

// genLayerRecords makes n records of the layers (HTTP, DNS and TLS in turn) with times in
// [from, to), their keys drawn from small pools, some empty (no response, unknown version).
func genLayerRecords(seed uint64, n int, from, to int64) []rec {
	rng := rand.New(rand.NewPCG(seed, seed^0x1a7e5))
	pick := func(n int) int { return rng.IntN(n) }
	out := genRecords(seed, n, from, to)
	for i := range out {
		r := &out[i]
		r.proto, r.layer = records.TCP, records.Layer(1+i%3)
		switch r.layer {
		case records.LayerHTTP:
			r.http = records.HTTP{Method: []string{"GET", "GET", "POST"}[pick(3)], Status: []uint16{200, 200, 404, 500, 0}[pick(5)],
				Host: []string{"", "a.example", "b.example"}[pick(3)], Path: []string{"/", "/api/users/{n}", "/static/app.js"}[pick(3)]}
		case records.LayerDNS:
			r.proto = records.UDP
			r.dns = records.DNS{QName: []string{"a.example", "b.example", ""}[pick(3)], QType: []uint16{1, 28, 15, 4000}[pick(4)],
				RCode: []uint16{0, 0, 3, 2, records.RCodeTimeout}[pick(5)]}
		case records.LayerTLS:
			r.tls = records.TLS{Version: []uint16{0, 0x0303, 0x0304, 0x0301}[pick(4)], Cipher: []uint16{0, 0x1301, 0xc02f, 0xff00}[pick(4)]}
			if r.tls.Version == 0x0303 {
				r.tls.NotAfter, r.tls.Issuer = 1_900_000_000+int64(pick(3))*86400, []string{"CN=R3", "CN=E1", ""}[pick(3)]
			}
		}
	}
	return out
}
