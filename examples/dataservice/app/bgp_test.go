package app_test

import (
	"context"
	"fmt"
	"io"
	"net/netip"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/bgp"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/internal/testutil"
)

// TestBGPStatus runs the service with -bgp and has gobgpd peer with it: collector-status lists
// its session, established with the routes it sent, and /metrics counts them.
func TestBGPStatus(t *testing.T) {
	t.Parallel()
	port := testenv.FreePort(t)
	s, a := startWith(t, app.Config{BGP: bgp.Config{Listen: fmt.Sprintf("127.0.0.1:%d", port), AS: 64500,
		Peers: []netip.Prefix{netip.MustParsePrefix("127.0.0.6/32")}}})
	g := testenv.StartGoBGPD(t, "127.0.0.6", 64600, port, 64500)
	g.CLI("global", "rib", "add", "198.51.100.0/24", "aspath", "64601", "nexthop", "127.0.0.6")

	https := s.http(t, client.WithAPIKey(s.key), client.WithDeclaredVersions())
	testutil.Until(t, testutil.Wait, "gobgpd's session in collector-status", func() error {
		st, err := client.Call(context.Background(), https, api.CollectorStatus, decl.None{})
		if err != nil {
			t.Fatal(err)
		}
		if len(st.BGP) != 1 || st.BGP[0].Address != "127.0.0.6" || st.BGP[0].AS != 64600 || st.BGP[0].State != "established" || st.BGP[0].Routes != 1 {
			return fmt.Errorf("bgp %+v", st.BGP)
		}
		return nil
	})
	if r, ok := a.BGP().Lookup(netip.MustParseAddr("127.0.0.6"), netip.MustParseAddr("198.51.100.1")); !ok || r.Origin() != 64601 {
		t.Errorf("Lookup answered %v %v", r, ok)
	}
	resp, err := s.srv.Client().Get(s.srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, want := range []string{`bgp_peers{state="established"} 1`, `bgp_routes{router="127.0.0.6"} 1`, "bgp_updates_total 1"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s:\n%s", want, body)
		}
	}
}
