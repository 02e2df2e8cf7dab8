package netctx_test

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/netctx"
)

func builtin(proto uint8, port uint16) string {
	if proto == 6 && port == 443 {
		return "https"
	}
	return netctx.Unknown
}

func TestApplications(t *testing.T) {
	t.Parallel()
	r := netctx.NewResolver(netctx.WithBuiltin(builtin))
	err := r.Set([]netctx.Zone{
		{Name: "DMZ", Networks: prefixes("10.1.0.0/16")},
		{Name: "Customers/ACME", Networks: prefixes("192.0.2.0/24")},
	}, []netctx.Application{
		{Name: "intranet", Rules: []netctx.Rule{{Protocol: 6, PortLow: 443, PortHigh: 443, ServerZone: "DMZ"}}},
		{Name: "acme-portal", Rules: []netctx.Rule{{Protocol: 6, PortLow: 443, PortHigh: 443, ServerZone: "DMZ", ClientZone: "Customers"}}},
		{Name: "payroll", Rules: []netctx.Rule{{Networks: prefixes("10.1.2.0/24")}}},
		{Name: "batch", Rules: []netctx.Rule{{Protocol: 6, PortLow: 8000, PortHigh: 8100}}},
		{Name: "batch-admin", Rules: []netctx.Rule{{Protocol: 6, PortLow: 8080, PortHigh: 8080}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	ip := netip.MustParseAddr
	for _, tc := range []struct {
		name string
		flow netctx.Flow
		want string
	}{
		{"zone rule", netctx.Flow{Client: ip("10.9.0.1"), Server: ip("10.1.0.1"), Protocol: 6, ServerPort: 443}, "intranet"},
		{"client zone is more specific", netctx.Flow{Client: ip("192.0.2.7"), Server: ip("10.1.0.1"), Protocol: 6, ServerPort: 443}, "acme-portal"},
		{"network beats zones", netctx.Flow{Client: ip("192.0.2.7"), Server: ip("10.1.2.9"), Protocol: 6, ServerPort: 443}, "payroll"},
		{"narrower range", netctx.Flow{Server: ip("8.8.8.8"), Protocol: 6, ServerPort: 8080}, "batch-admin"},
		{"range", netctx.Flow{Server: ip("8.8.8.8"), Protocol: 6, ServerPort: 8001}, "batch"},
		{"built-in", netctx.Flow{Server: ip("8.8.8.8"), Protocol: 6, ServerPort: 443}, "https"},
		{"unknown", netctx.Flow{Server: ip("8.8.8.8"), Protocol: 17, ServerPort: 9999}, netctx.Unknown},
	} {
		var c netctx.Context
		r.Resolve(&tc.flow, &c)
		if c.Application != tc.want {
			t.Errorf("%s: application %q, want %q", tc.name, c.Application, tc.want)
		}
	}
}

func TestApplicationsRefused(t *testing.T) {
	t.Parallel()
	zones := []netctx.Zone{{Name: "DMZ", Networks: prefixes("10.1.0.0/16")}}
	for name, tc := range map[string]struct {
		apps []netctx.Application
		want string
	}{
		"unknown zone":   {[]netctx.Application{{Name: "a", Rules: []netctx.Rule{{ServerZone: "Nowhere"}}}}, "never match"},
		"ports on icmp":  {[]netctx.Application{{Name: "a", Rules: []netctx.Rule{{Protocol: 1, PortLow: 1, PortHigh: 1}}}}, "never match"},
		"reversed range": {[]netctx.Application{{Name: "a", Rules: []netctx.Rule{{PortLow: 9, PortHigh: 1}}}}, "never match"},
		"same rule":      {[]netctx.Application{{Name: "a", Rules: []netctx.Rule{{Protocol: 6}}}, {Name: "b", Rules: []netctx.Rule{{Protocol: 6}}}}, `application "a" has a rule`},
		"no rule":        {[]netctx.Application{{Name: "a"}}, "no rule"},
		"host bits":      {[]netctx.Application{{Name: "a", Rules: []netctx.Rule{{Networks: prefixes("10.1.0.1/16")}}}}, "host bits"},
	} {
		t.Run(name, func(t *testing.T) {
			r := netctx.NewResolver()
			err := r.Set(zones, tc.apps)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
	for _, s := range []string{"0", "8100-8000", "x", "70000", "1-"} {
		if _, _, err := netctx.ParsePorts(s); err == nil {
			t.Errorf("ParsePorts(%q) accepted", s)
		}
	}
	if lo, hi, err := netctx.ParsePorts("8000-8100"); err != nil || lo != 8000 || hi != 8100 {
		t.Errorf("ParsePorts(8000-8100) = %d, %d, %v", lo, hi, err)
	}
}
