package inlet_test

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/bgp"
	"github.com/fnapi/fnapi/examples/dataservice/inlet"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/netctx"
	"github.com/fnapi/fnapi/examples/dataservice/pvql"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/records/duckdb"
	"github.com/fnapi/fnapi/internal/testutil"
)

// TestRoutesFromGoBGPD enriches records with the routes Debian's gobgpd (the router, started by
// the test) originates, through the service's speaker: records whose exporter is the router
// come back with each side's AS path (the router's AS first), communities (large ones too)
// and the origin's AS; a route withdrawn later changes the keys of the records that arrive
// after it, never those before.
func TestRoutesFromGoBGPD(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const router = "127.0.0.7"
	s, port := testenv.StartSpeaker(t, bgp.Config{}, nil, router)
	g := testenv.StartGoBGPD(t, router, 64600, port, testenv.SpeakerAS)
	g.CLI("global", "rib", "add", "198.51.100.0/24", "aspath", "64601,64700", "community", "64600:100", "large-community", "64600:1:2", "nexthop", router)
	g.CLI("global", "rib", "add", "198.51.100.128/25", "aspath", "64703", "community", "64600:300", "nexthop", router)
	covered := func(addr string, origin uint32) func() error {
		return func() error {
			r, ok := s.Lookup(netip.MustParseAddr(router), netip.MustParseAddr(addr))
			if !ok || r.Origin() != origin {
				return fmt.Errorf("the route of %s: %v, %v; want one of origin %d", addr, r, ok, origin)
			}
			return nil
		}
	}
	testutil.Until(t, 30*time.Second, "the routes from gobgpd", covered("198.51.100.200", 64703))
	testutil.Until(t, 30*time.Second, "the routes from gobgpd", covered("198.51.100.7", 64700))

	db, err := duckdb.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st := inlet.Enrich(db, netctx.NewResolver(), s)
	const at = 1_700_000_000
	ingest := func(t0 int64) {
		var recs []records.Record
		for _, server := range []string{"198.51.100.7", "198.51.100.200"} {
			recs = append(recs, records.Record{Time: t0, Protocol: 6, Application: "https", Exporter: netip.MustParseAddr(router),
				Client: records.Endpoint{IP: netip.MustParseAddr("10.0.0.1"), Port: 50000, Bytes: 10},
				Server: records.Endpoint{IP: netip.MustParseAddr(server), Port: 443, Bytes: 100}})
		}
		if err := st.Ingest(ctx, recs); err != nil {
			t.Fatal(err)
		}
	}
	ingest(at)
	g.CLI("global", "rib", "del", "198.51.100.128/25")
	testutil.Until(t, 30*time.Second, "the /25 withdrawn", covered("198.51.100.200", 64700))
	ingest(at + 10)

	e := pvql.New(db)
	for _, tt := range []struct{ q, want string }{
		{"records BY time(10), server.ip, server.as_path, server.communities, server.asn",
			`[[1700000010 198.51.100.7 [64600 64601 64700] [64600:100 64600:1:2] map[asn:64700 name:<nil>]] [1]] ` +
				`[[1700000010 198.51.100.200 [64600 64703] [64600:300] map[asn:64703 name:<nil>]] [1]] ` +
				`[[1700000020 198.51.100.7 [64600 64601 64700] [64600:100 64600:1:2] map[asn:64700 name:<nil>]] [1]] ` +
				`[[1700000020 198.51.100.200 [64600 64601 64700] [64600:100 64600:1:2] map[asn:64700 name:<nil>]] [1]]`},
		{"records BY time(10) WHERE server.as_path = 64703", `[[1700000010] [1]]`},
		{`records BY time(10) WHERE server.communities IN ("64600:1:2")`, `[[1700000010] [1]] [[1700000020] [2]]`},
		{"records BY client.as_path", `[[<nil>] [4]]`},
	} {
		res, err := e.Query(ctx, tt.q+" SINCE 1700000000 UNTIL 1700000060", time.Unix(at+60, 0), time.Minute)
		if err != nil {
			t.Fatalf("%s: %v", tt.q, err)
		}
		var got []string
		for _, row := range res[0].Data {
			got = append(got, fmt.Sprint([]any{row.Keys, row.Values}))
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.q, strings.Join(got, " "), tt.want)
		}
	}
}
