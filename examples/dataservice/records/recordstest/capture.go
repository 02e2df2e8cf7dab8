package recordstest

import (
	"context"
	"net/netip"
	"reflect"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/histogram"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// CaptureSums are every sum of the capture probe's fields, in Query order.
var CaptureSums = []records.Sum{records.SumClientRTT, records.SumClientRTTSamples, records.SumServerRTT,
	records.SumServerRTTSamples, records.SumCT, records.SumCTSamples, records.SumSRT, records.SumSRTSamples,
	records.SumDTT, records.SumDTTSamples, records.SumClientRetrans, records.SumServerRetrans,
	records.SumClientZeroWindows, records.SumServerZeroWindows, records.SumResets}

// CaptureBatch makes n records at time at as a capture probe fills them, for server name
// "www.example.com" when i is even and "api.example.com" (and none on every fourth) else;
// record i has i+1 samples of each time, of i microseconds on average for the client's rtt;
// the even records carry histograms of their srt and server rtt samples (spread over buckets
// around their average), the others came averaged.
func CaptureBatch(n int, at int64) []records.Record {
	out := Batch(n, at)
	for i := range out {
		r, k := &out[i], uint64(i+1)
		r.Client.RTT = records.Timing{Sum: uint64(i) * k, Samples: k}
		r.Server.RTT = records.Timing{Sum: 40000 * k, Samples: k}
		r.CT, r.SRT, r.DTT = records.Timing{Sum: 41000, Samples: 1}, records.Timing{Sum: 200000 * k, Samples: k}, records.Timing{Sum: 5 * k, Samples: k}
		r.Client.Retrans, r.Server.Retrans, r.Client.ZeroWindows, r.Server.ZeroWindows, r.Resets = k, 2*k, 3, 4, 1
		if i%2 == 0 {
			for j := range k {
				r.SRT.Hist.Add(0.2 * float64(j+1) / float64(k+1) * 2)
				r.Server.RTT.Hist.Add(0.04 + 0.001*float64(j))
			}
		}
		switch {
		case i%2 == 0:
			r.ServerName = "www.example.com"
		case i%4 == 1:
			r.ServerName = "api.example.com"
		}
	}
	return out
}

// CheckCapture checks that s keeps the capture probe's fields: it ingests CaptureBatch(8) at
// time at (a period s holds no other record of), beside a record without them, and reads every
// capture sum back by server_name, filtered with = and IN.
func CheckCapture(t *testing.T, s records.Store, at int64) {
	ctx := context.Background()
	plain := Batch(1, at)
	plain[0].Client.IP = netip.MustParseAddr("192.0.2.9")
	if err := s.Ingest(ctx, append(CaptureBatch(8, at), plain...)); err != nil {
		t.Fatal(err)
	}
	want := map[string][]uint64{}
	for _, r := range append(CaptureBatch(8, at), plain...) {
		w := want[r.ServerName]
		if w == nil {
			w = make([]uint64, len(CaptureSums))
		}
		for i, v := range []uint64{r.Client.RTT.Sum, r.Client.RTT.Samples, r.Server.RTT.Sum, r.Server.RTT.Samples,
			r.CT.Sum, r.CT.Samples, r.SRT.Sum, r.SRT.Samples, r.DTT.Sum, r.DTT.Samples, r.Client.Retrans,
			r.Server.Retrans, r.Client.ZeroWindows, r.Server.ZeroWindows, r.Resets} {
			w[i] += v
		}
		want[r.ServerName] = w
	}
	CheckHists(t, s, at, append(CaptureBatch(8, at), plain...))
	for _, where := range []records.Cond{nil,
		records.In{Column: records.ColServerName, Values: []records.Value{{Str: "www.example.com"}, {Str: "api.example.com"}}},
		records.Compare{Column: records.ColServerName, Op: records.Eq, Value: records.Value{Str: "api.example.com"}}} {
		q := &records.Query{Groups: []records.Group{{Column: records.ColServerName}}, Sums: CaptureSums, Where: where}
		got := map[string][]uint64{}
		err := s.Read(ctx, s.Compile(q), at, at+60, func(r *records.Row) error {
			g := got[r.Keys[0].Str]
			if g == nil {
				g = make([]uint64, len(CaptureSums))
			}
			for i, v := range r.Sums {
				g[i] = records.AddSum(g[i], v)
			}
			got[r.Keys[0].Str] = g
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for name, w := range want {
			if g := got[name]; !keptBy(where, name) && g == nil {
				continue
			} else if len(g) != len(w) || !equal(g, w) {
				t.Errorf("where %v: server_name %q sums %v, want %v", where, name, g, w)
			}
		}
		for name := range got {
			if !keptBy(where, name) {
				t.Errorf("where %v: read server_name %q", where, name)
			}
		}
	}
}

// Averaged returns recs without their histograms, as ingest keeps times that came averaged.
func Averaged(recs []records.Record) []records.Record {
	for i := range recs {
		r := &recs[i]
		for _, t := range []*records.Timing{&r.Client.RTT, &r.Server.RTT, &r.CT, &r.SRT, &r.DTT} {
			t.Hist = histogram.Histogram{}
		}
	}
	return recs
}

// HistColumns are the histogram columns of the times.
var HistColumns = []records.Column{records.ColClientRTTHist, records.ColServerRTTHist, records.ColCTHist, records.ColSRTHist, records.ColDTTHist}

// CheckHists reads the histograms of recs (the records of s in [at, at+60)) by server name and
// in all, in one plan, and checks them against the records' own merged (Timing.Buckets).
func CheckHists(t *testing.T, s records.Store, at int64, recs []records.Record) {
	ctx := context.Background()
	timings := func(r *records.Record) []records.Timing {
		return []records.Timing{r.Client.RTT, r.Server.RTT, r.CT, r.SRT, r.DTT}
	}
	want := map[string][]histogram.Histogram{}
	all := make([]histogram.Histogram, len(HistColumns))
	for _, r := range recs {
		w := want[r.ServerName]
		if w == nil {
			w = make([]histogram.Histogram, len(HistColumns))
		}
		for i, tm := range timings(&r) {
			w[i].Merge(tm.Buckets())
			all[i].Merge(tm.Buckets())
		}
		want[r.ServerName] = w
	}
	byName := &records.Query{Groups: []records.Group{{Column: records.ColServerName}}, Sums: []records.Sum{records.SumRecords}, Hists: HistColumns}
	total := &records.Query{Sums: []records.Sum{records.SumSRTSamples}, Hists: HistColumns}
	got := map[string][]histogram.Histogram{}
	gotAll := make([]histogram.Histogram, len(HistColumns))
	err := s.Read(ctx, s.Compile(byName, total), at, at+60, func(r *records.Row) error {
		if len(r.Hists) != len(HistColumns) {
			t.Fatalf("a row of %d histograms, want %d", len(r.Hists), len(HistColumns))
		}
		if r.Query == 1 {
			for i, h := range r.Hists {
				gotAll[i].Merge(h)
			}
			return nil
		}
		g := got[r.Keys[0].Str]
		if g == nil {
			g = make([]histogram.Histogram, len(HistColumns))
		}
		for i, h := range r.Hists {
			g[i].Merge(h)
		}
		got[r.Keys[0].Str] = g
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("histograms by server name %v, want %v", got, want)
	}
	if !reflect.DeepEqual(gotAll, all) {
		t.Errorf("histograms in all %v, want %v", gotAll, all)
	}
}

// keptBy says whether the condition of CheckCapture keeps records of server name name.
func keptBy(c records.Cond, name string) bool {
	switch c := c.(type) {
	case records.In:
		return name != ""
	case records.Compare:
		return name == c.Value.Str
	}
	return true
}

func equal(a, b []uint64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}
