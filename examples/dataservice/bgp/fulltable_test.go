package bgp_test

import (
	"fmt"
	"net/netip"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/bgp"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/internal/testutil"
)

// BenchmarkFullTable has a peer written in the test send a full table of 1.2M IPv4 routes
// (/24s, a /16 every 256, 150k distinct AS paths and communities: one UPDATE of 8 routes
// each), and reports how long the speaker took to learn it (wall and the process's CPU), the
// live heap it then holds (at most 600 MB), the largest live heap while it arrived (sampled),
// the process's peak RSS (VmHWM), and the CPU its session's end takes (the table forgotten).
func BenchmarkFullTable(b *testing.B) {
	const routes = 1_200_000
	var msgs []byte
	var prefixes []netip.Prefix
	for i := range routes {
		a := netip.AddrFrom4([4]byte{byte(1 + i>>16), byte(i >> 8), byte(i), 0})
		bits := 24
		if i%256 == 255 {
			bits = 16
		}
		prefixes = append(prefixes, netip.PrefixFrom(a, bits))
		if len(prefixes) == 8 {
			path := []uint32{64900, 65000 + uint32(i/8%500), 70000 + uint32(i/8)}
			msgs = append(msgs, message(2, update(path, []uint32{64900<<16 | uint32(i/8%1000)}, prefixes))...)
			prefixes = prefixes[:0]
		}
	}
	for b.Loop() {
		before := bgp.LiveHeap()
		s, port := testenv.StartSpeaker(b, bgp.Config{}, nil, "127.0.0.7/32")
		p := dialRaw(b, "127.0.0.7", port, 64900)
		maxLive := sampleLiveHeap()
		start, cpu := time.Now(), testenv.CPUTime()
		if _, err := p.conn.Write(msgs); err != nil {
			b.Fatal(err)
		}
		testutil.Until(b, 5*time.Minute, "the full table", func() error {
			st, _ := peer(s, "127.0.0.7")
			if st.Routes != routes {
				return fmt.Errorf("%d routes", st.Routes)
			}
			return nil
		})
		took, cpuTook := time.Since(start), testenv.CPUTime()-cpu
		mb := float64(bgp.LiveHeap()-before) / (1 << 20)
		b.ReportMetric(took.Seconds(), "s/table")
		b.ReportMetric(mb, "MB")
		b.ReportMetric(cpuTook.Seconds(), "cpu-s/table")
		b.ReportMetric(float64(maxLive())/(1<<20), "MB-max-live")
		b.ReportMetric(float64(peakRSS(b))/(1<<20), "MB-peak-rss")
		if mb > 600 {
			b.Errorf("the speaker holds %.0f MB with a full table, want at most 600", mb)
		}
		cpu = testenv.CPUTime()
		s.Stop()
		b.ReportMetric((testenv.CPUTime() - cpu).Seconds(), "cpu-s/stop")
	}
}

// sampleLiveHeap samples the live heap (as the last collection marked it) every 50 ms until
// the function it returns is called, which returns the largest.
func sampleLiveHeap() func() uint64 {
	done, maxc := make(chan struct{}), make(chan uint64)
	go func() {
		m := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		var most uint64
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				metrics.Read(m)
				most = max(most, m[0].Value.Uint64())
			case <-done:
				maxc <- most
				return
			}
		}
	}()
	return func() uint64 { close(done); return <-maxc }
}

// peakRSS is the process's peak resident memory (VmHWM of /proc/self/status).
func peakRSS(b *testing.B) uint64 {
	st, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for l := range strings.Lines(string(st)) {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	b.Fatal("no VmHWM in /proc/self/status")
	return 0
}

// BenchmarkLookup looks addresses up in a full table of 1.2M routes (the router's own table):
// hot, 64 addresses over and over (a flood, a busy server: their nodes stay in the cache);
// spread, 4096 addresses across the table (three dependent loads at most, most of them cache misses).
// cpu-ns/op is the process's CPU time per lookup, which a busy machine disturbs less.
func BenchmarkLookup(b *testing.B) {
	s, err := bgp.New(bgp.Config{AS: 64500, Peers: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	router := netip.MustParseAddr("10.0.0.1")
	addrs := bgp.FullTable(s, router, 1_200_000)
	for _, c := range []struct {
		name string
		n    int
	}{{"hot", 64}, {"spread", len(addrs)}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			cpu := testenv.CPUTime()
			for b.Loop() {
				if _, ok := s.Lookup(router, addrs[i%c.n]); !ok {
					b.Fatal("no route")
				}
				i++
			}
			b.ReportMetric(float64(testenv.CPUTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
