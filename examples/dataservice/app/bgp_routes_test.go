package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/bgp"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/internal/testutil"
)

// TestBGPRoutesAtIngest runs the service with -bgp and gobgpd as the router: records ingested
// with the router as their exporter come back with the route's keys (AS path, communities, the
// origin as server.asn), and records of another exporter with any router's.
func TestBGPRoutesAtIngest(t *testing.T) {
	t.Parallel()
	const router = "127.0.0.8"
	port := testenv.FreePort(t)
	s, a := startWith(t, app.Config{BGP: bgp.Config{Listen: fmt.Sprintf("127.0.0.1:%d", port), AS: 64500,
		Peers: []netip.Prefix{netip.MustParsePrefix(router + "/32")}}})
	g := testenv.StartGoBGPD(t, router, 64600, port, 64500)
	g.CLI("global", "rib", "add", "198.51.100.0/24", "aspath", "64601", "community", "64600:100", "nexthop", router)
	testutil.Until(t, testutil.Wait, "gobgpd's route", func() error {
		if _, ok := a.BGP().Lookup(netip.MustParseAddr(router), netip.MustParseAddr("198.51.100.7")); !ok {
			return fmt.Errorf("no route yet")
		}
		return nil
	})
	ctx := context.Background()
	admin := s.http(t, client.WithAPIKey(s.key))
	t0 := time.Now().Add(-time.Hour).Unix() / 60 * 60
	var raw []json.RawMessage
	for i, exporter := range []string{router, "192.0.2.99"} {
		r := record(t0+int64(i), "10.0.0.1", "198.51.100.7", 443, 10, 100)
		r["exporter"] = exporter
		b, _ := json.Marshal(r)
		raw = append(raw, b)
	}
	if _, err := client.Call(ctx, admin, api.Ingest, api.IngestArgs{Records: raw}); err != nil {
		t.Fatal(err)
	}
	expr := fmt.Sprintf("records BY server.as_path, server.communities, server.asn, client.as_path WHERE server.communities = \"64600:100\" SINCE %d UNTIL %d", t0, t0+60)
	var got [][2][]any
	for chunk, err := range client.Stream(ctx, admin, api.Query, api.QueryArgs{Expr: expr}) {
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range chunk.Result[0].Data {
			got = append(got, [2][]any{row.Keys, toAny(row.Values)})
		}
	}
	if want := `[[[[64600 64601] [64600:100] map[asn:64601 name:<nil>] <nil>] [2]]]`; fmt.Sprint(got) != want {
		t.Errorf("%s:\n got %v\nwant %s", expr, got, want)
	}
}
