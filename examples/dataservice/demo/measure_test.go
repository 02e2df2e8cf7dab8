package demo_test

import (
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/demo"
	"github.com/fnapi/fnapi/examples/dataservice/histogram"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// TestGeneratorMeasures checks that the records carry what a probe measures, from the
// first minute: response times that differ by application (the cache fast, the partner API
// slow, the database with a long tail), retransmissions where the lossy branch link is,
// server names, exporters and interfaces; and that the incident slows the database and
// makes the Lyon link lose packets.
func TestGeneratorMeasures(t *testing.T) {
	t.Parallel()
	start := testNow.Add(-time.Hour)
	g := demo.New(start, demo.Options{Seed: 2, Incident: start})
	srt := map[string]*histogram.Histogram{}
	var incidentDB, calmDB histogram.Histogram
	retrans := map[string]uint64{}
	packets := map[string]uint64{}
	var names, exported, rtts, cts, dtts int
	lyonRetrans := map[bool]float64{}
	lyonPackets := map[bool]float64{}
	for _, r := range g.Until(testNow) {
		if err := r.Validate(testNow); err != nil {
			t.Fatalf("%+v: %v", r, err)
		}
		key := r.Server.IP.String()
		if srt[key] == nil {
			srt[key] = &histogram.Histogram{}
		}
		srt[key].Merge(r.SRT.Hist)
		incident := (r.Time-start.Unix())%600 < 120
		if key == "10.0.0.40" || key == "10.0.0.41" {
			if incident {
				incidentDB.Merge(r.SRT.Hist)
			} else {
				calmDB.Merge(r.SRT.Hist)
			}
		}
		if r.Client.IP.Is4() && r.Protocol == records.TCP {
			k := r.Client.IP.String()[:5]
			retrans[k] += r.Client.Retrans + r.Server.Retrans
			packets[k] += r.Client.Packets + r.Server.Packets
			if r.Client.IP.String()[:7] == "10.1.1." { // Lyon
				lyonRetrans[incident] += float64(r.Client.Retrans + r.Server.Retrans)
				lyonPackets[incident] += float64(r.Client.Packets + r.Server.Packets)
			}
		}
		if r.ServerName != "" {
			names++
		}
		if r.Exporter.IsValid() && r.InIf != 0 && r.OutIf != 0 {
			exported++
		}
		if r.Client.RTT.Samples > 0 && r.Server.RTT.Samples > 0 {
			rtts++
		}
		if r.CT.Samples > 0 {
			cts++
		}
		if r.DTT.Samples > 0 {
			dtts++
		}
	}
	p := func(ip string, q float64) float64 {
		v, ok := srt[ip].Quantile(q)
		if !ok {
			t.Fatalf("no response time of %s", ip)
		}
		return v
	}
	cache, db, partner := p("10.0.0.42", 0.5), p("10.0.0.40", 0.5), p("203.0.113.40", 0.5)
	if !(cache < db && db < partner) {
		t.Errorf("median response times: cache %v, database %v, partner API %v: want the cache fastest, the partner slowest", cache, db, partner)
	}
	if tail := p("10.0.0.40", 0.99) / db; tail < 10 {
		t.Errorf("database p99/p50 = %.1f, want a long tail (at least 10)", tail)
	}
	calm, _ := calmDB.Quantile(0.5)
	slow, _ := incidentDB.Quantile(0.5)
	if slow < 5*calm {
		t.Errorf("database median %v during the incident, %v else: want it much slower", slow, calm)
	}
	if lyon, hq := float64(retrans["10.1."])/float64(packets["10.1."]), float64(retrans["10.0."])/float64(packets["10.0."]); lyon < 5*hq || lyon == 0 {
		t.Errorf("retransmitted share: branches %v, head office %v: want the branches' far higher", lyon, hq)
	}
	if during, calm := lyonRetrans[true]/lyonPackets[true], lyonRetrans[false]/lyonPackets[false]; during < 5*calm {
		t.Errorf("Lyon retransmitted share %v during the incident, %v else", during, calm)
	}
	for what, n := range map[string]int{"server names": names, "exporters and interfaces": exported,
		"round trips": rtts, "connection times": cts, "transfer times": dtts} {
		if n == 0 {
			t.Errorf("no record with %s", what)
		}
	}
}

// TestGeneratorPlain checks that Plain records carry none of the routers' and probe's fields.
func TestGeneratorPlain(t *testing.T) {
	t.Parallel()
	for _, r := range demo.New(testNow, demo.Options{Plain: true}).Until(testNow.Add(10 * time.Minute)) {
		if r.Exporter.IsValid() || r.InIf != 0 || r.ServerName != "" || r.SRT.Samples != 0 || r.Client.RTT.Samples != 0 ||
			r.CT.Samples != 0 || r.DTT.Samples != 0 || r.Client.Retrans+r.Server.Retrans+r.Resets != 0 {
			t.Fatalf("plain record %+v", r)
		}
	}
}
