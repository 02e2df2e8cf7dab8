package recordstest

import (
	"context"
	"math/rand/v2"
	"net/netip"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/histogram"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// checkLayerPercentiles checks that the percentiles of the HTTP layer's times, which a store
// reads from its rollups where they answer (per minute to per 6 hours), are those of the
// requests themselves: 1,000 requests from 3 hosts over 30 hours after from, each with 1 to
// 3 srt samples, stored in four batches, read by host over periods that cut the rollups' buckets at odd seconds. Each
// host's merged histogram equals the one the requests of the period make, and equals what the
// store reads from the requests alone (a condition on http.method, a key no rollup holds). The
// requests are all before until, and stay out of CheckLayers's other periods.
func checkLayerPercentiles(t *testing.T, s records.Store, from int64) {
	t.Helper()
	const n, span = 1000, 30 * 3600
	var recs []records.Record
	for i := range n {
		r := records.Record{Time: from + int64(i)*span/n + int64(i%7), Protocol: records.TCP, Application: "http", Layer: records.LayerHTTP,
			Client: records.Endpoint{IP: netip.AddrFrom4([4]byte{10, 8, 0, byte(i)}), Port: 50000, Bytes: 7, Packets: 3},
			Server: records.Endpoint{IP: netip.AddrFrom4([4]byte{192, 0, 2, byte(i % 3)}), Port: 80, Bytes: 70, Packets: 5},
			HTTP:   records.HTTP{Method: "GET", Status: 200, Host: "h" + strconv.Itoa(i%3) + ".example", Path: "/p"}}
		for j := range 1 + i%3 {
			r.SRT.Add(time.Duration(1+(i*7919+j*104729)%3000) * time.Millisecond)
		}
		recs = append(recs, r)
	}
	// In four batches, each over the whole span: a bucket gets a row from each, which the
	// store adds up (DuckDB compacts them in SQL).
	for b := range 4 {
		var batch []records.Record
		for i := b; i < n; i += 4 {
			batch = append(batch, recs[i])
		}
		if err := s.Ingest(context.Background(), batch); err != nil {
			t.Fatal(err)
		}
	}
	byHost := []records.Group{{Column: records.ColHTTPHost}}
	rollups := &records.Query{Layer: records.LayerHTTP, Groups: byHost, Sums: []records.Sum{records.SumRecords}, Hists: []records.Column{records.ColSRTHist}}
	raw := *rollups
	raw.Where = records.Compare{Column: records.ColHTTPMethod, Op: records.Eq, Value: records.Value{Str: "GET"}}
	for _, p := range [][2]int64{{from, from + span + 7}, {from + 37, from + span - 41}, {from + 6*3600 - 1, from + 24*3600 + 601}, {from + 3599, from + 7*3600 + 59}} {
		want := map[string]histogram.Histogram{}
		for _, r := range recs {
			if r.Time >= p[0] && r.Time < p[1] {
				h := want[r.HTTP.Host]
				h.Merge(r.SRT.Hist)
				want[r.HTTP.Host] = h
			}
		}
		for _, q := range []*records.Query{rollups, &raw} {
			got := readHists(t, s, q, p[0], p[1])
			if !reflect.DeepEqual(got, want) {
				t.Errorf("srt by host over [%d, %d) (condition %v): %v, want %v", p[0]-from, p[1]-from, q.Where, got, want)
			}
			for host, h := range got {
				g, _ := h.Quantile(0.95)
				w, _ := want[host].Quantile(0.95)
				if g != w {
					t.Errorf("p95(srt) of %s over [%d, %d) (condition %v): %v, want %v", host, p[0]-from, p[1]-from, q.Where, g, w)
				}
			}
		}
	}
}

// readHists reads q, grouped by one string key with one histogram, over [from, to) and returns
// each group's histogram, its rows merged.
func readHists(t *testing.T, s records.Store, q *records.Query, from, to int64) map[string]histogram.Histogram {
	t.Helper()
	if c, ok := s.(interface{ CatchUp(context.Context) error }); ok {
		if err := c.CatchUp(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	out := map[string]histogram.Histogram{}
	err := s.Read(context.Background(), s.Compile(q), from, to, func(r *records.Row) error {
		if r.Hists[0].Count() == 0 {
			return nil
		}
		h := out[r.Keys[0].Str]
		h.Merge(r.Hists[0])
		out[r.Keys[0].Str] = h.Clone()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// HTTPFrom and HTTPSpan are the period IngestHTTPRequests fills: two whole buckets of 6 hours
// at least, and every narrower width cut at each end.
const (
	HTTPFrom = int64(1_699_992_000)
	HTTPSpan = int64(14 * 3600)
)

// IngestHTTPRequests stores into s, in four batches (so that rows of one bucket and keys
// repeat), 6,000 HTTP requests at random seconds of HTTPSpan after HTTPFrom, from one client
// to one server, of 5 hosts and statuses 200 and 404, each with 0 to 2 samples of srt (up to
// 3 s) and of dtt (up to 3 ms): what a test of the HTTP rollups reads back.
func IngestHTTPRequests(t *testing.T, s records.Store, rng *rand.Rand) {
	t.Helper()
	for range 4 {
		recs := make([]records.Record, 1500)
		for i := range recs {
			r := &recs[i]
			r.Time, r.Protocol, r.Application, r.Layer = HTTPFrom+rng.Int64N(HTTPSpan), records.TCP, "http", records.LayerHTTP
			r.Client.IP, r.Server.IP = netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
			r.HTTP = records.HTTP{Method: "GET", Status: []uint16{200, 404}[rng.IntN(2)], Host: "h" + strconv.Itoa(rng.IntN(5)) + ".example"}
			for range rng.IntN(3) {
				r.SRT.Add(time.Duration(1+rng.IntN(3_000_000)) * time.Microsecond)
				r.DTT.Add(time.Duration(1+rng.IntN(3_000)) * time.Microsecond)
			}
		}
		if err := s.Ingest(context.Background(), recs); err != nil {
			t.Fatal(err)
		}
	}
}

// HTTPPeriod returns a period over IngestHTTPRequests' span: at random seconds that cut the
// rollups' buckets, or with whole, nearly the whole span (every width read).
func HTTPPeriod(rng *rand.Rand, whole bool) (from, to int64) {
	if whole {
		return HTTPFrom - 1000 + rng.Int64N(2000), HTTPFrom + HTTPSpan - 1000 + rng.Int64N(2000)
	}
	from = HTTPFrom - 100 + rng.Int64N(HTTPSpan)
	return from, from + rng.Int64N(HTTPFrom+HTTPSpan+100-from)
}
