package recordstest

import (
	"context"
	"fmt"
	"maps"
	"net/netip"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/histogram"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// CheckLayers checks the records of the layers (records.Layer): the transport's statements
// answer the same before and after records of HTTP, DNS and TLS arrive over their period (the
// rollups hold the transport's alone, and its reads of the records take layer 0), each layer's
// Query reads its records alone, by its keys and with its condition, and retention deletes the
// records of every layer, and the HTTP layer's percentiles read from the rollups are those of
// the requests (checkLayerPercentiles). at, a multiple of 3600, must be later than every record
// s holds; the check ingests records over the 35 hours after it and one two days later, and, as
// it tests retention, deletes every record before that day: run it last.
func CheckLayers(t *testing.T, s records.Store, at int64) {
	t.Helper()
	ctx := context.Background()
	transport := Batch(48, at)
	for i := range transport {
		r := &transport[i]
		r.Time = at + int64(i)*300
		r.Application = []string{"https", "dns", "ssh"}[i%3]
		r.SRT = records.Timing{Sum: uint64(1000 * (i + 1)), Samples: 1}
	}
	if err := s.Ingest(ctx, transport); err != nil {
		t.Fatal(err)
	}
	queries := []*records.Query{
		{Groups: []records.Group{{Column: records.ColApplication}},
			Sums:  []records.Sum{records.SumClientBytes, records.SumServerBytes, records.SumRecords, records.SumSRT, records.SumSRTSamples},
			Hists: []records.Column{records.ColSRTHist}},
		{Groups: []records.Group{{Column: records.ColTime, Bucket: 3600}, {Column: records.ColServerIP}},
			Sums: []records.Sum{records.SumRecords, records.SumClientBytes}},
		{Groups: []records.Group{{Column: records.ColProtocol}, {Column: records.ColClientZone}}, Sums: []records.Sum{records.SumRecords}},
		{Sums: []records.Sum{records.SumRecords, records.SumSRTSamples}},
	}
	before := readLayered(t, s, queries, at+150, at+4*3600)
	if got := before[3]["[]"]; got[0] != 47 {
		t.Fatalf("the transport's records: %v, want 47", got)
	}
	layered := LayerBatch(at)
	if err := s.Ingest(ctx, layered); err != nil {
		t.Fatal(err)
	}
	if after := readLayered(t, s, queries, at+150, at+4*3600); !reflect.DeepEqual(after, before) {
		t.Fatalf("the transport's answers changed with the layers' records:\n%v\nwant\n%v", after, before)
	}
	for _, c := range []struct {
		what string
		q    *records.Query
		want map[string][]uint64
	}{
		{"http by host", &records.Query{Layer: records.LayerHTTP, Groups: []records.Group{{Column: records.ColHTTPHost}},
			Sums: []records.Sum{records.SumRecords, records.SumSRT, records.SumSRTSamples}},
			map[string][]uint64{`[{0 0 a.example}]`: {10, 100_000, 10}, `[{0 0 b.example}]`: {10, 110_000, 10}}},
		{"http by status and method, path /x", &records.Query{Layer: records.LayerHTTP,
			Groups: []records.Group{{Column: records.ColHTTPStatus}, {Column: records.ColHTTPMethod}},
			Sums:   []records.Sum{records.SumRecords},
			Where:  records.Compare{Column: records.ColHTTPPath, Op: records.Eq, Value: records.Value{Str: "/x"}}},
			map[string][]uint64{`[{0 0 } {0 0 GET}]`: {3}, `[{0 200 } {0 0 GET}]`: {7}}},
		{"dns A and AAAA by rcode", &records.Query{Layer: records.LayerDNS, Groups: []records.Group{{Column: records.ColDNSRCode}},
			Sums:  []records.Sum{records.SumRecords},
			Where: records.In{Column: records.ColDNSQType, Values: []records.Value{{Lo: 1}, {Lo: 28}}}},
			map[string][]uint64{`[{0 0 }]`: {3}, `[{0 3 }]`: {3}, fmt.Sprintf("[{0 %d }]", records.RCodeTimeout): {2}}},
		{"tls by version and cipher", &records.Query{Layer: records.LayerTLS,
			Groups: []records.Group{{Column: records.ColTLSVersion}, {Column: records.ColTLSCipher}, {Column: records.ColTLSIssuer}},
			Sums:   []records.Sum{records.SumRecords, records.SumCTSamples}},
			map[string][]uint64{`[{0 771 } {0 49199 } {0 0 CN=R3}]`: {3, 3}, `[{0 772 } {0 4865 } {0 0 }]`: {3, 3}}},
	} {
		got := readLayered(t, s, []*records.Query{c.q}, at, at+4*3600)[0]
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.what, got, c.want)
		}
	}
	checkExpiry(t, s, at)
	checkLayerPercentiles(t, s, at+5*3600)
	// Retention deletes the records of every layer (ClickHouse's whole days as DuckDB's rows).
	day := records.CeilTo(at+4*3600, 86400) + 86400
	later := LayerBatch(day)[:1]
	if err := s.Ingest(ctx, later); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DeleteBefore(ctx, day); err != nil {
		t.Fatal(err)
	}
	for l := records.LayerTransport; l < records.NumLayers; l++ {
		want := uint64(0)
		if l == records.LayerHTTP {
			want = 1
		}
		q := &records.Query{Layer: l, Sums: []records.Sum{records.SumRecords}}
		if got := readLayered(t, s, []*records.Query{q}, 0, 1<<40)[0]["[]"]; len(got) > 0 && got[0] != want || len(got) == 0 && want > 0 {
			t.Errorf("layer %d after retention: %v records, want %d", l, got, want)
		}
	}
}

// LayerBatch returns 20 HTTP, 12 DNS and 6 TLS records over the four hours after at, with
// bytes, packets and times of their own, which no transport statement may count.
func LayerBatch(at int64) []records.Record {
	var out []records.Record
	rec := func(i int, l records.Layer) *records.Record {
		out = append(out, records.Record{Time: at + int64(i)*700 + 30, Protocol: records.TCP, Application: "https", Layer: l,
			Client: records.Endpoint{IP: netip.AddrFrom4([4]byte{10, 9, 0, byte(i)}), Port: 50000, Bytes: 7, Packets: 3},
			Server: records.Endpoint{IP: netip.MustParseAddr("2001:db8::1"), Port: 443, Bytes: 70, Packets: 5}})
		return &out[len(out)-1]
	}
	for i := range 20 {
		r := rec(i, records.LayerHTTP)
		r.HTTP = records.HTTP{Method: "GET", Host: []string{"a.example", "b.example"}[i%2], Path: []string{"/x", "/y/{n}"}[i/2%2]}
		if i%3 != 0 {
			r.HTTP.Status = 200
		}
		r.SRT = records.Timing{Sum: uint64(1000 * (i + 1)), Samples: 1}
	}
	for i := range 12 {
		r := rec(i, records.LayerDNS)
		r.Protocol, r.Application, r.Server.Port = records.UDP, "dns", 53
		r.DNS = records.DNS{QName: "a.example", QType: []uint16{1, 28, 15}[i%3], RCode: []uint16{0, 3, records.RCodeTimeout}[i/4]}
	}
	for i := range 6 {
		r := rec(i, records.LayerTLS)
		r.ServerName = "a.example"
		if i == 5 {
			r.ServerName = "c.example" // no certificate in clear
		}
		r.CT = records.Timing{Sum: 20_000, Samples: 1}
		r.TLS = records.TLS{Version: 0x0304, Cipher: 0x1301}
		if i%2 == 0 { // expiries 2030-01-01, 2029-12-30, 2030-01-03 (2: the earliest)
			r.TLS = records.TLS{Version: 0x0303, Cipher: 0xc02f, NotAfter: notAfter + int64(i*i-3*i)*86400, Issuer: "CN=R3"}
		}
	}
	return out
}

// notAfter is the TLS records' expiry but for the days LayerBatch adds.
var notAfter = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).Unix()

// readLayered reads qs over [from, to) and returns each one's groups: its sums (with the
// samples of its histograms) by its keys' text.
func readLayered(t *testing.T, s records.Store, qs []*records.Query, from, to int64) []map[string][]uint64 {
	t.Helper()
	if c, ok := s.(interface{ CatchUp(context.Context) error }); ok {
		if err := c.CatchUp(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	out := make([]map[string][]uint64, len(qs))
	for i := range out {
		out[i] = map[string][]uint64{}
	}
	err := s.Read(context.Background(), s.Compile(qs...), from, to, func(r *records.Row) error {
		k := fmt.Sprint(r.Keys)
		sums := out[r.Query][k]
		if sums == nil {
			sums = make([]uint64, len(r.Sums)+len(r.Hists))
		}
		for j, v := range r.Sums {
			sums[j] = records.MergeSum(qs[r.Query].Sums[j], sums[j], v)
		}
		for j, h := range r.Hists {
			sums[len(r.Sums)+j] = histogram.SatAdd(sums[len(r.Sums)+j], h.Count())
		}
		out[r.Query][k] = sums
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range out {
		for _, k := range slices.Collect(maps.Keys(m)) {
			if m[k] == nil {
				delete(m, k)
			}
		}
	}
	return out
}

// checkExpiry checks the extremes of tls.not_after: the earliest and latest known expiry of
// each group, 0 for a group without one (an unknown expiry, 0, never wins the min), alone and
// read with a query of other keys in one plan (a union's branches, where the store groups by
// several sets at once).
func checkExpiry(t *testing.T, s records.Store, at int64) {
	t.Helper()
	extremes := []records.Sum{records.SumRecords, records.SumMinTLSNotAfter, records.SumMaxTLSNotAfter}
	byName := &records.Query{Layer: records.LayerTLS, Groups: []records.Group{{Column: records.ColServerName}}, Sums: extremes}
	byVersion := &records.Query{Layer: records.LayerTLS, Groups: []records.Group{{Column: records.ColTLSVersion}}, Sums: extremes}
	day := uint64(86400)
	wantName := map[string][]uint64{`[{0 0 a.example}]`: {5, uint64(notAfter) - 2*day, uint64(notAfter) + 4*day}, `[{0 0 c.example}]`: {1, 0, 0}}
	wantVersion := map[string][]uint64{`[{0 771 }]`: {3, uint64(notAfter) - 2*day, uint64(notAfter) + 4*day}, `[{0 772 }]`: {3, 0, 0}}
	if got := readLayered(t, s, []*records.Query{byName}, at, at+4*3600)[0]; !reflect.DeepEqual(got, wantName) {
		t.Errorf("tls expiry by server name: %v, want %v", got, wantName)
	}
	both := readLayered(t, s, []*records.Query{byName, byVersion}, at, at+4*3600)
	if !reflect.DeepEqual(both, []map[string][]uint64{wantName, wantVersion}) {
		t.Errorf("tls expiry by server name and by version in one plan: %v, want %v and %v", both, wantName, wantVersion)
	}
	// A group with no certificate in its period, and the period's edges cut within it.
	one := &records.Query{Layer: records.LayerTLS, Sums: extremes, Where: records.Compare{Column: records.ColTLSVersion, Op: records.Eq, Value: records.Value{Lo: 0x0304}}}
	if got := readLayered(t, s, []*records.Query{one}, at, at+4*3600)[0]; !reflect.DeepEqual(got, map[string][]uint64{"[]": {3, 0, 0}}) {
		t.Errorf("tls expiry of TLS 1.3: %v, want 3 records, 0, 0", got)
	}
}
