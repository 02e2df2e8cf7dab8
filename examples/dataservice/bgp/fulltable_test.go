package bgp_test

import (
	"fmt"
	"net/netip"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/bgp"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/internal/testutil"
)

// BenchmarkFullTable has a peer written in the test send a full table of 1.2M IPv4 routes
// (/24s, a /16 every 256, 150k distinct AS paths and communities: one UPDATE of 8 routes
// each), and reports how long the speaker took to learn it and the live heap it then holds,
// GoBGP's Adj-RIB-In of the session included. At most 600 MB.
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
		before := liveHeap()
		s, port := startSpeaker(b, bgp.Config{}, "127.0.0.7/32")
		p := dialRaw(b, "127.0.0.7", port, 64900)
		start, cpu := time.Now(), testenv.CPUTime()
		if _, err := p.conn.Write(msgs); err != nil {
			b.Fatal(err)
		}
		testutil.Until(b, 5*time.Minute, "the full table", func() error {
			st, _ := peerOf(s, "127.0.0.7")
			if st.Routes != routes {
				return fmt.Errorf("%d routes", st.Routes)
			}
			return nil
		})
		took, cpuTook := time.Since(start), testenv.CPUTime()-cpu
		mb := float64(liveHeap()-before) / (1 << 20)
		b.ReportMetric(took.Seconds(), "s/table")
		b.ReportMetric(mb, "MB")
		b.ReportMetric(cpuTook.Seconds(), "cpu-s/table")
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		b.ReportMetric(float64(ru.Maxrss)/1024, "MB-peak-rss")
		if mb > 600 {
			b.Errorf("the speaker holds %.0f MB with a full table, want at most 600", mb)
		}
		s.Stop()
	}
}

func peerOf(s *bgp.Speaker, addr string) (bgp.PeerStatus, bool) { return peer(s, addr) }

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
