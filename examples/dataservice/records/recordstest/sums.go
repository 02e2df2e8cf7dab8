package recordstest

import (
	"context"
	"fmt"
	"math/big"
	"net/netip"
	"reflect"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/histogram"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// SumHour is the hour the tests of sums fill, its first second.
const SumHour = int64(19_000)*86400 + 7200

// SumRecords makes, in one minute of SumHour, what an attacker can ingest: 2,049 records of
// MaxCount a side (application "https": their sums pass MaxSum), 2,048 more (application
// "ssh": their sums are MaxSum-2047, exact), and 3 small ones ("dns"), over four client
// addresses.
func SumRecords() []records.Record {
	var out []records.Record
	add := func(n int, app string, count uint64) {
		for i := range n {
			out = append(out, records.Record{Time: SumHour + 60 + int64(i%60), Protocol: records.TCP, Application: app,
				Client: records.Endpoint{IP: netip.AddrFrom4([4]byte{10, 0, 0, byte(i % 4)}), Port: 40000, Bytes: count, Packets: count},
				Server: records.Endpoint{IP: netip.MustParseAddr("2001:db8::1"), Port: 443, Bytes: count, Packets: count}})
		}
	}
	add(2049, "https", records.MaxCount)
	add(2048, "ssh", records.MaxCount)
	add(3, "dns", 100)
	return out
}

// SumQueries are the statements the tests of sums read: a total, by application, by minute
// and application (the rollups without addresses), by server and by client address (those
// with).
func SumQueries() []*records.Query {
	all := []records.Sum{records.SumClientBytes, records.SumServerBytes, records.SumClientPackets, records.SumServerPackets, records.SumRecords}
	return []*records.Query{
		{Sums: all},
		{Groups: []records.Group{{Column: records.ColApplication}}, Sums: all},
		{Groups: []records.Group{{Bucket: 60}, {Column: records.ColApplication}}, Sums: all},
		{Groups: []records.Group{{Column: records.ColServerIP}}, Sums: all},
		{Groups: []records.Group{{Column: records.ColClientIP}, {Column: records.ColApplication}}, Sums: all},
	}
}

// WantSums returns the sums of each group of q over recs, as SumsBy keys them: exact, computed
// without overflow, and MaxSum where they pass it.
func WantSums(q *records.Query, recs []records.Record) map[string][]uint64 {
	exact := map[string][]*big.Int{}
	for i := range recs {
		r := &recs[i]
		var keys []records.Value
		for _, g := range q.Groups {
			switch {
			case g.Bucket > 0:
				keys = append(keys, records.Value{Lo: uint64(records.FloorTo(r.Time, g.Bucket) + g.Bucket)})
			case g.Column == records.ColApplication:
				keys = append(keys, records.Value{Str: r.Application})
			default:
				a := r.Client.IP
				if g.Column == records.ColServerIP {
					a = r.Server.IP
				}
				hi, lo := records.Halves(a)
				keys = append(keys, records.Value{Hi: hi, Lo: lo})
			}
		}
		k := fmt.Sprint(0, keys) // SumsBy reads one query at a time
		if exact[k] == nil {
			exact[k] = []*big.Int{new(big.Int), new(big.Int), new(big.Int), new(big.Int), new(big.Int)}
		}
		for j, v := range []uint64{r.Client.Bytes, r.Server.Bytes, r.Client.Packets, r.Server.Packets, 1} {
			exact[k][j].Add(exact[k][j], new(big.Int).SetUint64(v))
		}
	}
	out := map[string][]uint64{}
	for k, sums := range exact {
		for _, s := range sums {
			v := uint64(records.MaxSum)
			if s.IsUint64() {
				v = s.Uint64()
			}
			out[k] = append(out[k], v)
		}
	}
	return out
}

// CheckSums reads every query of SumQueries over the whole of SumHour and over a period that
// cuts it, from the records alone and through the rollups, and checks every sum against
// WantSums.
func CheckSums(t *testing.T, s records.Reader, recordsOnly func(...*records.Query) *records.Plan, recs []records.Record) {
	t.Helper()
	for _, q := range SumQueries() {
		want := WantSums(q, recs)
		for _, period := range [][2]int64{{SumHour, SumHour + 3600}, {SumHour + 61, SumHour + 3599}} {
			for _, raw := range []bool{true, false} {
				rolled := !raw && period[0] == SumHour
				if !raw && !rolled {
					continue
				}
				got := SumsBy(t, s, recordsOnly, period[0], period[1], raw, q)
				w := want
				if period[0] != SumHour {
					w = WantSums(q, SlicesOf(recs, period[0], period[1]))
				}
				if !reflect.DeepEqual(got, w) {
					t.Errorf("%+v over [%d, %d), rollups %v: read %v, want %v", q, period[0], period[1], rolled, got, w)
				}
			}
		}
	}
}

// SlicesOf returns the records of recs with from <= time < to.
func SlicesOf(recs []records.Record, from, to int64) []records.Record {
	var out []records.Record
	for _, r := range recs {
		if r.Time >= from && r.Time < to {
			out = append(out, r)
		}
	}
	return out
}

// IngestSums ingests recs into s in batches of 1,000 (several rollup rows, and on ClickHouse
// several parts, for a bucket and keys), then one record three hours later, which makes
// SumHour due for DuckDB's background rollups.
func IngestSums(t *testing.T, s records.Store, recs []records.Record) {
	t.Helper()
	ctx := context.Background()
	for i := 0; i < len(recs); i += 1000 {
		if err := s.Ingest(ctx, recs[i:min(i+1000, len(recs))]); err != nil {
			t.Fatal(err)
		}
	}
	late := recs[len(recs)-1]
	late.Time = SumHour + 3*3600
	if err := s.Ingest(ctx, []records.Record{late}); err != nil {
		t.Fatal(err)
	}
}

// rollups counts the rollups p's parts read.
func rollups(p *records.Plan) int {
	n := 0
	p.Each(func(part *records.Plan) error {
		n += len(part.Levels)
		return nil
	})
	return n
}

// SumsBy reads qs over [from, to) from the records alone (raw: a plan of recordsOnly) or with
// the rollups, and returns the sums of each query's groups, then their merged histograms (each
// its number of buckets, then its entries).
func SumsBy(t *testing.T, s records.Reader, recordsOnly func(...*records.Query) *records.Plan, from, to int64, raw bool, qs ...*records.Query) map[string][]uint64 {
	t.Helper()
	p := s.Compile(qs...)
	if raw {
		p = recordsOnly(qs...)
	} else if rollups(p) == 0 {
		t.Fatalf("no rollup for %+v", qs)
	}
	out := map[string][]uint64{}
	hists := map[string][]histogram.Histogram{}
	err := s.Read(context.Background(), p, from, to, func(r *records.Row) error {
		k := fmt.Sprint(r.Query, r.Keys)
		if out[k] == nil {
			out[k], hists[k] = make([]uint64, len(r.Sums)), make([]histogram.Histogram, len(r.Hists))
		}
		for i, v := range r.Sums {
			out[k][i] = records.AddSum(out[k][i], v)
		}
		for i, h := range r.Hists {
			hists[k][i].Merge(h)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Each histogram after the sums: its number of buckets, then its entries.
	for k, hs := range hists {
		for _, h := range hs {
			out[k] = append(out[k], uint64(len(h.Buckets())))
			out[k] = records.EncodeHist(out[k], h)
		}
	}
	return out
}
