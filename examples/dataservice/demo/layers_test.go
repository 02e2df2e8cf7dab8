package demo_test

import (
	"slices"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/demo"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// TestGeneratorLayers checks the demo's layer records tell the stories the README promises:
// the intranet's orders path slow during the incident, wpad never found, DNS queries lost, the
// partner's TLS 1.2 certificate expiring first; and that every record is valid.
func TestGeneratorLayers(t *testing.T) {
	t.Parallel()
	recs := generate(5, 6*time.Hour, time.Minute)
	var byLayer [records.NumLayers]int
	var ordersIn, ordersOut []float64
	statuses := map[uint16]int{}
	rcodes := map[uint16]int{}
	expires := map[string]int64{}
	versions := map[uint16]int{}
	const incidentStart = 0 // the incidents start at :00, :10, ... of each hour
	for _, r := range recs {
		if err := r.Validate(testNow); err != nil {
			t.Fatalf("invalid record %+v: %v", r, err)
		}
		byLayer[r.Layer]++
		switch r.Layer {
		case records.LayerHTTP:
			statuses[r.HTTP.Status]++
			if r.HTTP.Host == "intranet.corp.example" && r.HTTP.Path == "/api/orders/{n}" {
				srt, _ := r.SRT.Seconds()
				in := (r.Time-incidentStart)%int64(demo.IncidentEvery/time.Second) < int64(demo.IncidentLasts/time.Second)
				if in {
					ordersIn = append(ordersIn, srt)
				} else {
					ordersOut = append(ordersOut, srt)
				}
			}
			if r.Client.Bytes == 0 || r.SRT.Samples != 1 || r.DTT.Samples != 1 {
				t.Fatalf("HTTP record without its sizes or times: %+v", r)
			}
		case records.LayerDNS:
			rcodes[r.DNS.RCode]++
			if r.DNS.QName == "wpad.corp.example" && r.DNS.RCode != 3 && r.DNS.RCode != records.RCodeTimeout {
				t.Errorf("wpad answered %d, want NXDOMAIN", r.DNS.RCode)
			}
			if (r.DNS.RCode == records.RCodeTimeout) != (r.SRT.Samples == 0) {
				t.Errorf("a DNS query's srt and timeout disagree: %+v", r)
			}
		case records.LayerTLS:
			versions[r.TLS.Version]++
			if r.TLS.NotAfter != 0 {
				expires[r.ServerName] = r.TLS.NotAfter - r.Time
			}
		}
	}
	for l, n := range byLayer {
		if n < 100 {
			t.Errorf("layer %d: %d records in 6 hours, want at least 100", l, n)
		}
	}
	t.Logf("records by layer: %v", byLayer)
	median := func(xs []float64) float64 { slices.Sort(xs); return xs[len(xs)/2] }
	if len(ordersIn) < 10 || len(ordersOut) < 10 {
		t.Fatalf("orders requests: %d in incidents, %d outside", len(ordersIn), len(ordersOut))
	}
	if in, out := median(ordersIn), median(ordersOut); in < 5*out {
		t.Errorf("orders path median %.3f s in incidents, %.3f s outside: want the incident 5x slower", in, out)
	}
	for _, s := range []uint16{200, 304, 404, 500} {
		if statuses[s] == 0 {
			t.Errorf("no HTTP status %d in %v", s, statuses)
		}
	}
	for _, c := range []uint16{0, 2, 3, records.RCodeTimeout} {
		if rcodes[c] == 0 {
			t.Errorf("no DNS rcode %d in %v", c, rcodes)
		}
	}
	if versions[0x0304] == 0 || versions[0x0303] == 0 {
		t.Errorf("TLS versions %v, want 1.2 and 1.3", versions)
	}
	first := ""
	for name, left := range expires {
		if first == "" || left < expires[first] {
			first = name
		}
	}
	if first != "api.partner.example" || expires[first] > 10*86400 {
		t.Errorf("certificate expiring first: %q in %v s, want api.partner.example within 10 days", first, expires[first])
	}
}

// TestQuietHoursShowErrors checks that each hour of a weekend night, the demo's quietest
// (about 120 HTTP requests), has HTTP errors (the broken link, always 404) and failing DNS
// names (wpad), so that the Application performance dashboard's error tables, which read
// the last hour, are never empty. At 01:30 UTC on a Monday the 5xx alone were none.
func TestQuietHoursShowErrors(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC) // a Sunday
	g := demo.New(start, demo.Options{Seed: 1})
	missing := 0
	for h := 1; h <= 6; h++ {
		var errs, failing int
		for _, r := range g.Until(start.Add(time.Duration(h) * time.Hour)) {
			switch {
			case r.Layer == records.LayerHTTP && r.HTTP.Status > 399:
				errs++
				if r.HTTP.Host == "www.example.com" && r.HTTP.Path == "/favicon.ico" {
					missing++
				}
			case r.Layer == records.LayerDNS && r.DNS.RCode == 3:
				failing++
			}
		}
		if errs < 3 || failing == 0 {
			t.Errorf("%02d:00-%02d:00: %d HTTP errors, %d NXDOMAIN: want errors of both", h-1, h, errs, failing)
		}
	}
	if missing == 0 {
		t.Error("no request for the broken link in 6 hours")
	}
}
