package pvql

import (
	"context"
	"math/rand/v2"
	"net/netip"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// benchRows is the number of records the benchmarks query, all within the default period;
// change it to measure larger tables.
const benchRows = 1_000_000

// benchRecords makes n records over the hour before testNow from 10,000 clients and 100
// servers.
func benchRecords(n int) []rec {
	rng := rand.New(rand.NewPCG(7, 11))
	out := make([]rec, n)
	for i := range out {
		c := rng.IntN(10_000)
		out[i] = rec{
			time:     testNow - 3600 + rng.Int64N(3600),
			proto:    []uint8{6, 6, 6, 17, 1}[rng.IntN(5)],
			app:      testApps[rng.IntN(len(testApps))],
			cIP:      netip.AddrFrom4([4]byte{10, byte(c >> 8), byte(c), 1}),
			sIP:      netip.AddrFrom4([4]byte{93, 184, byte(rng.IntN(100)), 34}),
			cPort:    uint16(1024 + rng.IntN(60000)),
			sPort:    []uint16{22, 53, 80, 123, 443}[rng.IntN(5)],
			cBytes:   rng.Uint64N(10_000),
			cPackets: rng.Uint64N(20),
			sBytes:   rng.Uint64N(100_000),
			sPackets: rng.Uint64N(100),
		}
	}
	return out
}

func benchmarkQuery(b *testing.B, expr string) {
	engine := New(openDB(b, benchRecords(benchRows)))
	now := time.Unix(testNow, 0)
	b.ResetTimer()
	for b.Loop() {
		res, err := engine.Query(context.Background(), expr, now, time.Hour)
		if err != nil {
			b.Fatal(err)
		}
		if len(res[0].Data) == 0 {
			b.Fatal("no rows")
		}
	}
}

func BenchmarkQueryTrafficByClientIP(b *testing.B) { benchmarkQuery(b, "traffic BY client.ip") }

func BenchmarkQueryTrafficByTime60(b *testing.B) { benchmarkQuery(b, "traffic BY time(60)") }

func BenchmarkParse(b *testing.B) {
	const expr = "client.traffic / traffic AS \"ratio\", records BY client.ip, time(60) FROM tcp " +
		"WHERE client.ip IN 10.0.0.0/8 AND NOT server.port IN (22, 53) HAVING ratio > 0.5 TOP 10 SINCE @now-3600"
	for b.Loop() {
		if _, err := Parse(expr); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkQueryOverview answers the overview dashboard's statements afresh, as
// BenchmarkLiveOverview's Live answers them incrementally.
func BenchmarkQueryOverview(b *testing.B) { benchmarkQuery(b, strings.Join(liveStatements[:7], "; ")) }

// BenchmarkLiveOverview follows the overview dashboard's statements over benchRows records of
// 10,000 clients in the hour: each op is one answer a second later, with no late records.
// It reports the groups the Live keeps and the heap they take, per group.
func BenchmarkLiveOverview(b *testing.B) {
	s := openDB(b, benchRecords(benchRows))
	ctx := context.Background()
	l, err := New(s).Live(strings.Join(liveStatements[:7], "; "), s.Changes())
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := l.Answer(ctx, time.Unix(testNow, 0), time.Hour); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	kept, heap := float64(l.kept), float64(after.HeapAlloc-before.HeapAlloc)
	now := testNow
	for b.Loop() {
		now++
		if _, err := l.Answer(ctx, time.Unix(now, 0), time.Hour); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(kept, "kept-groups")
	b.ReportMetric(heap/kept, "B/kept-group")
}

// BenchmarkGroups adds rows to a statement's group table: a month of BY time(60), 43,200 new
// groups, the same BY every key besides time (the widest key a group keeps), and 10 groups (a
// TOP 10) each met 10,000 times.
func BenchmarkGroups(b *testing.B) {
	b.Run("new=43200", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			g := groupsOf(layout([]key{{kind: kTime, n: 60}})) // BY time(60)
			for i := range 43_200 {
				g.at(gkey{time: int64(i) * 60})[0]++
			}
		}
	})
	b.Run("every-key=43200", func(b *testing.B) {
		slots := layout(everyKey(records.LayerTransport)) // BY time(60) and every other key, each name set
		var k gkey
		for i := range k.s {
			k.s[i] = "name"
		}
		b.ReportAllocs()
		for b.Loop() {
			g := groupsOf(slots)
			for i := range 43_200 {
				k.time = int64(i) * 60
				g.at(k)[0]++
			}
		}
	})
	b.Run("groups=10", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			g := groupsOf(layout([]key{{kind: kServerPort}})) // BY server.port
			for i := range 100_000 {
				g.at(gkey{w: [maxWords]uint64{uint64(i % 10)}})[0]++
			}
		}
	})
}

// BenchmarkResult answers a month of BY time(60) from its 43,200 groups, which arrive in no
// order: computing the values, sorting by time and rendering the rows.
func BenchmarkResult(b *testing.B) {
	sts, err := Parse("traffic BY time(60)")
	if err != nil {
		b.Fatal(err)
	}
	g := newGroups()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, i := range rng.Perm(43_200) {
		g.at(gkey{time: int64(i) * 60})[records.SumClientBytes] = uint64(i)
	}
	s := &state{st: sts[0], slots: layout(sts[0].keys), groups: g}
	b.ReportAllocs()
	for b.Loop() {
		if r := s.result(); len(r.Data) != 43_200 {
			b.Fatalf("%d rows", len(r.Data))
		}
	}
}
