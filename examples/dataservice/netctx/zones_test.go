package netctx_test

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/netctx"
)

func prefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

func TestZonesLookup(t *testing.T) {
	t.Parallel()
	z, err := netctx.NewZones([]netctx.Zone{
		{Name: "HQ", Networks: prefixes("10.0.0.0/8", "2001:db8::/32")},
		{Name: "HQ/DMZ", Networks: prefixes("10.1.0.0/16", "2001:db8:1::/48")},
		{Name: "HQ/DMZ/Web", Networks: prefixes("10.1.2.3/32")},
		{Name: "Customers/ACME", Networks: prefixes("192.0.2.0/24")},
		{Name: "Everything", Networks: prefixes("0.0.0.0/0")},
	})
	if err != nil {
		t.Fatal(err)
	}
	for addr, want := range map[string]string{
		"10.9.9.9":        "HQ",
		"10.1.9.9":        "HQ/DMZ",
		"10.1.2.3":        "HQ/DMZ/Web",
		"10.1.2.4":        "HQ/DMZ",
		"::ffff:10.1.2.3": "HQ/DMZ/Web",
		"192.0.2.200":     "Customers/ACME",
		"8.8.8.8":         "Everything",
		"2001:db8::1":     "HQ",
		"2001:db8:1:2::1": "HQ/DMZ",
		"2001:db9::1":     netctx.Other,
		"::1":             netctx.Other,
	} {
		if got := z.Lookup(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Lookup(%s) = %q, want %q", addr, got, want)
		}
	}
	var empty *netctx.Zones
	if got := empty.Lookup(netip.MustParseAddr("10.0.0.1")); got != netctx.Other {
		t.Errorf("nil zones: %q", got)
	}
}

func TestZonesRefused(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		zones []netctx.Zone
		want  string
	}{
		"host bits":  {[]netctx.Zone{{Name: "A", Networks: prefixes("10.0.0.1/8")}}, "host bits"},
		"two zones":  {[]netctx.Zone{{Name: "A", Networks: prefixes("10.0.0.0/8")}, {Name: "B", Networks: prefixes("10.0.0.0/8")}}, `in zones "A" and "B"`},
		"twice":      {[]netctx.Zone{{Name: "A", Networks: prefixes("10.0.0.0/8", "10.0.0.0/8")}}, "listed twice"},
		"empty name": {[]netctx.Zone{{Name: ""}}, "empty"},
		"empty part": {[]netctx.Zone{{Name: "A//B"}}, "non-empty"},
		"reserved":   {[]netctx.Zone{{Name: "other"}}, "reserved"},
		"same name":  {[]netctx.Zone{{Name: "A"}, {Name: "A"}}, "twice"},
		"quote":      {[]netctx.Zone{{Name: `a"b`}}, "quote"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := netctx.NewZones(tc.zones)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// TestCheckNameRefused: a new zone or application name (set-zone, set-application) is refused
// for markup, bidirectional and C1 characters, line breaks, bad UTF-8 and invisible names.
func TestCheckNameRefused(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		zones []netctx.Zone
		want  string
	}{
		"markup":     {[]netctx.Zone{{Name: "<img src=x onerror=alert(1)>"}}, "markup"},
		"greater":    {[]netctx.Zone{{Name: "HQ/a>b"}}, "markup"},
		"RLO":        {[]netctx.Zone{{Name: "HQ/\u202egnp.exe"}}, "bidirectional"},
		"isolate":    {[]netctx.Zone{{Name: "HQ\u2066x"}}, "bidirectional"},
		"mark":       {[]netctx.Zone{{Name: "HQ\u200f"}}, "bidirectional"},
		"C1":         {[]netctx.Zone{{Name: "HQ\u0085DMZ"}}, "control"},
		"CSI":        {[]netctx.Zone{{Name: "HQ\u009b31m"}}, "control"},
		"line break": {[]netctx.Zone{{Name: "HQ\r\nState: resolved"}}, "control"},
		"not UTF-8":  {[]netctx.Zone{{Name: "HQ\xff"}}, "UTF-8"},
		"invisible":  {[]netctx.Zone{{Name: "\u200b"}}, "visible"},
	} {
		t.Run(name, func(t *testing.T) {
			err := netctx.CheckName(tc.zones[0].Name)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// TestStoredNamesStillLoad: a zone stored before CheckName grew stricter still loads, so a
// service whose state holds one starts; only giving it again is refused.
func TestStoredNamesStillLoad(t *testing.T) {
	t.Parallel()
	old := []netctx.Zone{{Name: "HQ/a>b", Networks: prefixes("10.0.0.0/8")}, {Name: "HQ\u202egnp", Networks: prefixes("10.1.0.0/16")}}
	zs, err := netctx.NewZones(old)
	if err != nil {
		t.Fatalf("stored zones refused: %v", err)
	}
	if got := zs.Names(); len(got) != 2 {
		t.Errorf("names %q, want both", got)
	}
	for _, z := range old {
		if netctx.CheckName(z.Name) == nil {
			t.Errorf("CheckName(%q) accepted it again", z.Name)
		}
	}
}

// TestZoneNamesAccepted: names of every script, with spaces, dashes and emoji, still pass.
func TestZoneNamesAccepted(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"HQ", "Customers/ACME Corp.", "Zürich/Büro-2", "東京/データセンター", "مكتب/القاهرة", "Lab 🚀", "a&b (c)'s"} {
		if err := netctx.CheckName(name); err != nil {
			t.Errorf("CheckName(%q): %v", name, err)
		}
	}
}

func TestInZone(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		zone, name string
		want       bool
	}{
		{"Customers/ACME", "Customers", true},
		{"Customers", "Customers", true},
		{"CustomersX", "Customers", false},
		{"Customers", "Customers/ACME", false},
	} {
		if got := netctx.InZone(tc.zone, tc.name); got != tc.want {
			t.Errorf("InZone(%q, %q) = %v", tc.zone, tc.name, got)
		}
	}
}
