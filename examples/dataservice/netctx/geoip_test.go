package netctx_test

import (
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/netctx"
	"github.com/fnapi/fnapi/internal/testutil"
	"github.com/maxmind/mmdbwriter"
	"github.com/maxmind/mmdbwriter/mmdbtype"
)

// writeMMDB writes a MaxMind DB file of the given type whose networks hold the given records.
func writeMMDB(t testing.TB, path, dbType string, records map[string]mmdbtype.Map) {
	t.Helper()
	tree, err := mmdbwriter.New(mmdbwriter.Options{DatabaseType: dbType, RecordSize: 24,
		Description: map[string]string{"en": dbType + " written by the test"}})
	if err != nil {
		t.Fatal(err)
	}
	for cidr, rec := range records {
		_, n, err := net.ParseCIDR(cidr)
		if err != nil {
			t.Fatal(err)
		}
		if err := tree.Insert(n, rec); err != nil {
			t.Fatal(err)
		}
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tree.WriteTo(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil { // as an updater replaces it
		t.Fatal(err)
	}
}

func asn(n uint32, org string) mmdbtype.Map {
	return mmdbtype.Map{"autonomous_system_number": mmdbtype.Uint32(n), "autonomous_system_organization": mmdbtype.String(org)}
}

func country(iso string) mmdbtype.Map {
	return mmdbtype.Map{"country": mmdbtype.Map{"iso_code": mmdbtype.String(iso), "names": mmdbtype.Map{"en": mmdbtype.String(iso)}}}
}

func TestGeoIP(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	asnPath, countryPath := filepath.Join(dir, "GeoLite2-ASN.mmdb"), filepath.Join(dir, "GeoLite2-Country.mmdb")
	writeMMDB(t, asnPath, "GeoLite2-ASN", map[string]mmdbtype.Map{
		"8.8.8.0/24": asn(15169, "GOOGLE"), "2001:4860::/32": asn(15169, "GOOGLE"), "93.184.216.0/24": asn(15133, "EDGECAST")})
	writeMMDB(t, countryPath, "GeoLite2-Country", map[string]mmdbtype.Map{
		"8.8.8.0/24": country("US"), "2001:4860::/32": country("US"), "93.184.216.0/24": country("GB")})
	a, err := netctx.OpenGeoFile(asnPath, netctx.LayoutASN)
	if err != nil {
		t.Fatal(err)
	}
	c, err := netctx.OpenGeoFile(countryPath, netctx.LayoutCountry)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		addr    string
		asn     netctx.ASN
		country string
	}{
		{"8.8.8.8", netctx.ASN{Number: 15169, Name: "GOOGLE"}, "US"},
		{"::ffff:8.8.8.8", netctx.ASN{Number: 15169, Name: "GOOGLE"}, "US"},
		{"2001:4860::8888", netctx.ASN{Number: 15169, Name: "GOOGLE"}, "US"},
		{"93.184.216.34", netctx.ASN{Number: 15133, Name: "EDGECAST"}, "GB"},
		{"1.1.1.1", netctx.ASN{}, ""},    // not in the file
		{"10.0.0.5", netctx.ASN{}, ""},   // private
		{"100.64.1.1", netctx.ASN{}, ""}, // shared
		{"127.0.0.1", netctx.ASN{}, ""},  // loopback
		{"fe80::1", netctx.ASN{}, ""},    // link-local
		{"fd00::1", netctx.ASN{}, ""},    // unique local
	} {
		ip := netip.MustParseAddr(tc.addr)
		if got := a.ASN(ip); got != tc.asn {
			t.Errorf("ASN(%s) = %+v, want %+v", tc.addr, got, tc.asn)
		}
		if got := c.Country(ip); got != tc.country {
			t.Errorf("Country(%s) = %q, want %q", tc.addr, got, tc.country)
		}
	}
	t.Run("wrong layout", func(t *testing.T) {
		_, err := netctx.OpenGeoFile(countryPath, netctx.LayoutASN)
		if err == nil || !strings.Contains(err.Error(), "layout") {
			t.Errorf("a Country file opened as ASN: %v", err)
		}
	})
}

// TestGeoIPReload: a file replaced on disk is read again while in use; a truncated one or
// one of another layout leaves the previous in place and says why.
func TestGeoIPReload(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "asn.mmdb")
	writeMMDB(t, path, "GeoLite2-ASN", map[string]mmdbtype.Map{"8.8.8.0/24": asn(15169, "GOOGLE")})
	g, err := netctx.OpenGeoFile(path, netctx.LayoutASN)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 100)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		ctx, cancel := contextUntil(stop)
		defer cancel()
		g.Watch(ctx, 20*time.Millisecond, func(err error) {
			select {
			case errs <- err:
			default:
			}
		})
	}()
	ip := netip.MustParseAddr("8.8.8.8")

	writeMMDB(t, path, "GeoLite2-ASN", map[string]mmdbtype.Map{"8.8.8.0/24": asn(64500, "RENUMBERED")})
	testutil.Eventually(t, "the new file", func() bool { return g.ASN(ip).Number == 64500 })
	if got := g.ASN(ip).Name; got != "RENUMBERED" {
		t.Errorf("name = %q after reload", got)
	}

	b, _ := os.ReadFile(path)
	if err := os.WriteFile(path, b[:len(b)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the truncated file's error", func() bool { return g.Status().Error != "" })
	if got := g.ASN(ip).Number; got != 64500 {
		t.Errorf("after a truncated file the ASN is %d, want the previous file's", got)
	}

	writeMMDB(t, path, "GeoLite2-Country", map[string]mmdbtype.Map{"8.8.8.0/24": country("US")})
	testutil.Eventually(t, "the layout error", func() bool { return strings.Contains(g.Status().Error, "layout") })
	if got := g.ASN(ip).Number; got != 64500 {
		t.Errorf("after a file of another layout the ASN is %d, want the previous file's", got)
	}

	writeMMDB(t, path, "GeoLite2-ASN", map[string]mmdbtype.Map{"8.8.8.0/24": asn(15169, "GOOGLE")})
	testutil.Eventually(t, "the good file again", func() bool { return g.ASN(ip).Number == 15169 && g.Status().Error == "" })
}

// TestGeoIPNamesBounded: the names an operator's file gives are input as a device's are: a
// 1 MB AS name, one with a line break and U+202E, come out clean and at most MaxLabelLength
// bytes, by IPv4 (flattened) and IPv6 (decoded at lookup) alike. (A file holding invalid
// UTF-8 is refused whole, as damaged.)
func TestGeoIPNamesBounded(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "asn.mmdb")
	huge := strings.Repeat("ACME ", 200_000) // 1 MB
	writeMMDB(t, path, "GeoLite2-ASN", map[string]mmdbtype.Map{
		"8.8.8.0/24": asn(64500, huge), "2001:4860::/32": asn(64500, huge),
		"9.9.9.0/24": asn(64501, "EVIL\r\nCORP\u202eLTD")})
	g, err := netctx.OpenGeoFile(path, netctx.LayoutASN)
	if err != nil {
		t.Fatal(err)
	}
	for addr, want := range map[string]string{
		"8.8.8.8":      strings.TrimSpace(huge[:netctx.MaxLabelLength]),
		"2001:4860::1": strings.TrimSpace(huge[:netctx.MaxLabelLength]),
		"9.9.9.9":      "EVIL  CORPLTD",
	} {
		if got := g.ASN(netip.MustParseAddr(addr)).Name; got != want {
			t.Errorf("the AS name of %s = %.300q (%d bytes), want %q", addr, got, len(got), want)
		}
	}
}
