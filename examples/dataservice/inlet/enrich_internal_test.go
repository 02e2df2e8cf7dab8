package inlet

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/bgp"
	"github.com/fnapi/fnapi/examples/dataservice/netctx"
	"github.com/fnapi/fnapi/examples/dataservice/pvql"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/records/duckdb"

	"github.com/maxmind/mmdbwriter"
	"github.com/maxmind/mmdbwriter/mmdbtype"
)

// table is a BGP table the test fills, as the speaker keeps one per router: the route covering
// an address is that of its longest prefix in the router's table, else in any table.
type table map[netip.Addr]map[netip.Prefix]*bgp.Route

func (t table) Lookup(router, addr netip.Addr) (*bgp.Route, bool) {
	find := func(routes map[netip.Prefix]*bgp.Route) (*bgp.Route, bool) {
		for bits := addr.BitLen(); bits >= 0; bits-- {
			p, _ := addr.Prefix(bits)
			if r, ok := routes[p]; ok {
				return r, true
			}
		}
		return nil, false
	}
	if r, ok := find(t[router]); ok {
		return r, true
	}
	for _, routes := range t {
		if r, ok := find(routes); ok {
			return r, true
		}
	}
	return nil, false
}

var (
	edge1, edge2 = netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	routesOf     = table{
		edge1: {
			netip.MustParsePrefix("198.51.100.0/24"): {ASPath: []uint32{64500, 64510}, Communities: []string{"65000:100", "4200000000:1:2"}},
			netip.MustParsePrefix("198.51.100.128/25"): {ASPath: append(slices.Repeat([]uint32{64501}, 40), 64520),
				Communities: slices.Repeat([]string{"65000:7"}, 40)},
			netip.MustParsePrefix("10.0.0.0/8"): {Communities: []string{"65000:1"}}, // the router's own AS: no path
		},
		edge2: {netip.MustParsePrefix("198.51.100.0/24"): {ASPath: []uint32{64502, 64510}, Communities: []string{"65000:200"}}},
	}
)

// geoResolver is a Resolver whose GeoIP ASN file places 198.51.100.0/24 in AS 64999 and names
// AS 64510 (by another network of it).
func geoResolver(t *testing.T) *netctx.Resolver {
	t.Helper()
	tree, err := mmdbwriter.New(mmdbwriter.Options{DatabaseType: "GeoLite2-ASN", RecordSize: 24, IncludeReservedNetworks: true,
		Description: map[string]string{"en": "the test's"}})
	if err != nil {
		t.Fatal(err)
	}
	for cidr, a := range map[string]mmdbtype.Map{
		"198.51.100.0/24": {"autonomous_system_number": mmdbtype.Uint32(64999), "autonomous_system_organization": mmdbtype.String("GEOIP-AS")},
		"203.0.113.0/24":  {"autonomous_system_number": mmdbtype.Uint32(64510), "autonomous_system_organization": mmdbtype.String("ORIGIN-AS")},
	} {
		_, n, _ := net.ParseCIDR(cidr)
		if err := tree.Insert(n, a); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "GeoLite2-ASN.mmdb")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tree.WriteTo(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	asns, err := netctx.OpenGeoFile(path, netctx.LayoutASN)
	if err != nil {
		t.Fatal(err)
	}
	return netctx.NewResolver(netctx.WithGeoIP(asns, nil))
}

// TestResolveRoutes checks that each side of a record gets the route covering its address in
// the table of the record's exporter (another router's when its own has none): its AS path and
// communities, cut at records.MaxASPath and MaxCommunities, and its AS from the route's origin (of
// the whole path)
// rather than the GeoIP file's, named by the file's name of that number; a route without a
// path keeps the file's AS; without routes, nothing of a route.
func TestResolveRoutes(t *testing.T) {
	t.Parallel()
	r := geoResolver(t)
	rec := func(exporter netip.Addr, client, server string) records.Record {
		return records.Record{Protocol: 6, Application: "https", Exporter: exporter,
			Client: records.Endpoint{IP: netip.MustParseAddr(client), Port: 50000},
			Server: records.Endpoint{IP: netip.MustParseAddr(server), Port: 443}}
	}
	recs := []records.Record{rec(edge1, "10.1.2.3", "198.51.100.7"), rec(edge2, "10.1.2.3", "198.51.100.7"),
		rec(edge1, "203.0.113.9", "198.51.100.200"), rec(netip.Addr{}, "203.0.113.9", "198.51.100.7")}
	resolve(r, routesOf, recs)
	for i, want := range []struct{ client, server records.Place }{
		{records.Place{Communities: []string{"65000:1"}},
			records.Place{ASN: 64510, ASName: "ORIGIN-AS", ASPath: []uint32{64500, 64510}, Communities: []string{"65000:100", "4200000000:1:2"}}},
		{records.Place{Communities: []string{"65000:1"}},
			records.Place{ASN: 64510, ASName: "ORIGIN-AS", ASPath: []uint32{64502, 64510}, Communities: []string{"65000:200"}}},
		{records.Place{ASN: 64510, ASName: "ORIGIN-AS"},
			records.Place{ASN: 64520, ASPath: slices.Repeat([]uint32{64501}, records.MaxASPath), Communities: slices.Repeat([]string{"65000:7"}, records.MaxCommunities)}},
		{records.Place{ASN: 64510, ASName: "ORIGIN-AS"}, records.Place{ASN: 64510, ASName: "ORIGIN-AS"}},
	} {
		got := recs[i]
		if i == 3 { // no exporter: any router's table, edge1's or edge2's
			want.server.ASPath, want.server.Communities = got.Server.ASPath, got.Server.Communities
			if !slices.Contains([]uint32{64500, 64502}, got.Server.ASPath[0]) {
				t.Errorf("record without exporter: server path %v, want one of a router's", got.Server.ASPath)
			}
		}
		if !reflect.DeepEqual(got.Client.Place, want.client) || !reflect.DeepEqual(got.Server.Place, want.server) {
			t.Errorf("record %d: client %+v server %+v; want %+v and %+v", i, got.Client.Place, got.Server.Place, want.client, want.server)
		}
	}
	plain := []records.Record{rec(edge1, "10.1.2.3", "198.51.100.7")}
	resolve(r, nil, plain)
	if p := plain[0].Server.Place; p.ASN != 64999 || p.ASName != "GEOIP-AS" || p.ASPath != nil || p.Communities != nil {
		t.Errorf("without routes: server %+v, want the GeoIP file's AS and no route", p)
	}
}

// TestEnrichedRoutesQueried checks that records stored through Enrich with a table keep their
// routes, which queries group by (the whole list) and filter on (an AS in the path, a
// community among the route's); a route changed in the table changes the records that arrive
// after it, never those before.
func TestEnrichedRoutesQueried(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := duckdb.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	routes := table{edge1: {netip.MustParsePrefix("198.51.100.0/24"): {ASPath: []uint32{64500, 64510}, Communities: []string{"65000:100"}}}}
	st := Enrich(db, netctx.NewResolver(), routes)
	const at = 1_700_000_000
	ingest := func(t0 int64) {
		recs := []records.Record{{Time: t0, Protocol: 6, Application: "https", Exporter: edge1,
			Client: records.Endpoint{IP: netip.MustParseAddr("10.0.0.1"), Port: 50000, Bytes: 10},
			Server: records.Endpoint{IP: netip.MustParseAddr("198.51.100.7"), Port: 443, Bytes: 100}}}
		if err := st.Ingest(ctx, recs); err != nil {
			t.Fatal(err)
		}
	}
	ingest(at)
	// The route withdrawn and another learned: the record before keeps the first.
	routes[edge1] = map[netip.Prefix]*bgp.Route{netip.MustParsePrefix("198.51.100.0/23"): {ASPath: []uint32{64501, 64520}, Communities: []string{"65000:200", "65000:300"}}}
	ingest(at + 10)
	e := pvql.New(db)
	for _, tt := range []struct{ q, want string }{
		{"records BY server.as_path, server.communities, server.asn", `[[[64500 64510] [65000:100] map[asn:64510 name:<nil>]] [1]] [[[64501 64520] [65000:200 65000:300] map[asn:64520 name:<nil>]] [1]]`},
		{"records BY client.as_path, client.communities", `[[<nil> <nil>] [2]]`},
		{"records BY time(10) WHERE server.as_path = 64510", `[[1700000010] [1]]`},
		{`records BY time(10) WHERE server.communities IN ("65000:300", "65000:999")`, `[[1700000020] [1]]`},
		{"records WHERE server.as_path != 64500", `[[] [1]]`},
		{"records WHERE client.as_path = null", `[[] [2]]`},
	} {
		res, err := e.Query(ctx, tt.q+" SINCE 1700000000 UNTIL 1700000060", time.Unix(at+60, 0), time.Minute)
		if err != nil {
			t.Fatalf("%s: %v", tt.q, err)
		}
		if got := rows(res[0]); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.q, got, tt.want)
		}
	}
}

// rows writes a result's rows as [keys values] pairs.
func rows(r pvql.Result) string {
	var out []string
	for _, row := range r.Data {
		out = append(out, fmt.Sprint([]any{row.Keys, row.Values}))
	}
	return strings.Join(out, " ")
}

// TestNilSpeaker checks that a nil *bgp.Speaker (the service's without -bgp) is no routes:
// records are stored without any, rather than the lookup failing on it.
func TestNilSpeaker(t *testing.T) {
	t.Parallel()
	var stored []records.Record
	st := Enrich(keeper{recs: &stored}, netctx.NewResolver(), (*bgp.Speaker)(nil))
	rec := records.Record{Protocol: 6, Application: "https",
		Client: records.Endpoint{IP: netip.MustParseAddr("10.0.0.1")}, Server: records.Endpoint{IP: netip.MustParseAddr("198.51.100.7")}}
	if err := st.Ingest(context.Background(), []records.Record{rec}); err != nil || len(stored) != 1 || stored[0].Server.ASPath != nil {
		t.Fatalf("Ingest = %v, stored %+v; want the record without a route", err, stored)
	}
}

// keeper is a records.Store that keeps what it is given (and reads nothing).
type keeper struct {
	records.Store
	recs *[]records.Record
}

func (c keeper) Ingest(_ context.Context, recs []records.Record) error {
	*c.recs = append(*c.recs, recs...)
	return nil
}

// TestDemoRoutes checks the demo's table (used without -bgp): a public server's record gets
// its route (the partner's API through the second transit provider, the company's tags), a
// private client none.
func TestDemoRoutes(t *testing.T) {
	t.Parallel()
	var stored []records.Record
	st := Enrich(keeper{recs: &stored}, netctx.NewResolver(), demoRoutes())
	rec := records.Record{Protocol: 6, Application: "https",
		Client: records.Endpoint{IP: netip.MustParseAddr("10.0.0.5")}, Server: records.Endpoint{IP: netip.MustParseAddr("203.0.113.40")}}
	if err := st.Ingest(context.Background(), []records.Record{rec}); err != nil || len(stored) != 1 {
		t.Fatalf("Ingest = %v, stored %+v", err, stored)
	}
	s, c := stored[0].Server, stored[0].Client
	if !slices.Equal(s.ASPath, []uint32{64511, 65536}) || !slices.Equal(s.Communities, []string{"64496:100", "64496:1:64511"}) ||
		s.ASN != 65536 || c.ASPath != nil || c.Communities != nil {
		t.Errorf("server %+v, client %+v: want the partner's route, and none for the private client", s.Place, c.Place)
	}
}
