package bgp

import (
	"math/rand/v2"
	"net/netip"
	"testing"
)

// TestTrieMatchesScan checks the trie's longest prefix match against a scan of every prefix,
// through inserts, replacements and removals, in both families; IPv4 over four /16 blocks and
// over four /24s (where most prefixes are longer than /24: the third stride).
func TestTrieMatchesScan(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ v6, dense bool }{{false, false}, {false, true}, {true, false}} {
		v6 := c.v6
		rng := rand.New(rand.NewPCG(1, 2))
		addr := func() netip.Addr {
			if c.dense {
				return netip.AddrFrom4([4]byte{10, 0, byte(rng.IntN(4)), byte(rng.IntN(256))})
			}
			if v6 {
				var b [16]byte
				b[0], b[1], b[2] = 0x20, 0x01, byte(rng.IntN(4))
				b[3] = byte(rng.IntN(256))
				return netip.AddrFrom16(b)
			}
			return netip.AddrFrom4([4]byte{10, byte(rng.IntN(4)), byte(rng.IntN(256)), byte(rng.IntN(256))})
		}
		tr := newTrie()
		want := map[netip.Prefix]uint32{}
		for i := range 4000 {
			bits := rng.IntN(addr().BitLen() + 1)
			p, _ := addr().Prefix(bits)
			if rng.IntN(3) == 0 {
				if got, w := tr.remove(p), want[p]; got != w {
					t.Fatalf("remove %s = %d, want %d", p, got, w)
				}
				delete(want, p)
			} else {
				a := uint32(i + 1)
				if got, w := tr.insert(p, a), want[p]; got != w {
					t.Fatalf("insert %s = %d, want %d", p, got, w)
				}
				want[p] = a
			}
			if tr.routes != len(want) {
				t.Fatalf("routes = %d, want %d", tr.routes, len(want))
			}
			if i%10 != 0 {
				continue
			}
			for range 20 {
				a := addr()
				best := longest(want, a)
				if got := tr.lookup(a); got != best {
					t.Fatalf("lookup %s = %d, want %d (v6 %v, step %d)", a, got, best, v6, i)
				}
			}
		}
		for p := range want {
			tr.remove(p)
		}
		if live := tr.size() - len(tr.free); live != 1 {
			t.Errorf("after removing every route, %d nodes remain, want the root", live)
		}
		if tr.dir != nil {
			if c2, c3 := tr.dir.chunks(); c2 != 0 || c3 != 0 {
				t.Errorf("after removing every route, %d and %d chunks remain, want none", c2, c3)
			}
		}
	}
}

// longest is the route of the longest prefix of want that holds a: what a lookup must find.
func longest(want map[netip.Prefix]uint32, a netip.Addr) uint32 {
	best, bestBits := uint32(0), -1
	for p, v := range want {
		if p.Contains(a) && p.Bits() > bestBits {
			best, bestBits = v, p.Bits()
		}
	}
	return best
}
