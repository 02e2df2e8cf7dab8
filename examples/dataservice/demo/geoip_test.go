package demo_test

import (
	"net/netip"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/demo"
	"github.com/fnapi/fnapi/examples/dataservice/netctx"
)

// TestGeoIP opens the demo's MaxMind DB files with the reader the service uses for real ones,
// and finds an AS number of the documentation ranges (RFC 5398) and a country for every
// public address of the demo's traffic, servers and customers.
func TestGeoIP(t *testing.T) {
	t.Parallel()
	asnPath, countryPath, err := demo.WriteGeoIP(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	asn, err := netctx.OpenGeoFile(asnPath, netctx.LayoutASN)
	if err != nil {
		t.Fatal(err)
	}
	country, err := netctx.OpenGeoFile(countryPath, netctx.LayoutCountry)
	if err != nil {
		t.Fatal(err)
	}
	if st := asn.Status(); st.Type != "Demo-ASN" || st.Error != "" {
		t.Errorf("ASN file status %+v", st)
	}
	doc := []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24"), netip.MustParsePrefix("198.51.100.0/24"),
		netip.MustParsePrefix("203.0.113.0/24"), netip.MustParsePrefix("2001:db8::/32")}
	seen := map[netip.Addr]bool{}
	for _, r := range demo.New(testNow, demo.Options{Seed: 3}).Until(testNow.Add(time.Hour)) {
		for _, a := range []netip.Addr{r.Client.IP, r.Server.IP} {
			if !netctx.Public(a) || seen[a] {
				continue
			}
			seen[a] = true
			inDoc := false
			for _, p := range doc {
				inDoc = inDoc || p.Contains(a)
			}
			as, cc := asn.ASN(a), country.Country(a)
			if !inDoc || !(as.Number >= 64496 && as.Number <= 64511 || as.Number >= 65536 && as.Number <= 65551) ||
				as.Name == "" || len(cc) != 2 {
				t.Errorf("%s: AS %+v, country %q; want a documentation address, AS number and a country", a, as, cc)
			}
		}
	}
	if len(seen) < 15 {
		t.Errorf("%d public addresses in an hour of traffic, want servers and customers", len(seen))
	}
	if got := asn.ASN(netip.MustParseAddr("2001:db8:80::10")); got.Number != 64500 {
		t.Errorf("2001:db8:80::10: AS %+v, want 64500", got)
	}
}
