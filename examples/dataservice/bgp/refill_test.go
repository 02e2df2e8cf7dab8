package bgp

import (
	"math/rand/v2"
	"net/netip"
	"testing"
)

// TestRefillOnlyOnChange: the IPv6 jump table is written only when a route changes. A
// withdrawal of a route the router does not have (::/0, which one UPDATE can name 4,066 times)
// and an announcement of a route it has with the same attributes write nothing; a real change
// of ::/0 writes the blocks it is the route of, not those of a longer prefix of at most 15
// bits; one of a prefix of 16 bits or more, its block only.
func TestRefillOnlyOnChange(t *testing.T) {
	t.Parallel()
	tr := newTrie()
	tr.insert(netip.MustParsePrefix("2001:db8::/32"), 1)
	tr.insert(netip.MustParsePrefix("2a00::/8"), 2)
	tr.insert(netip.MustParsePrefix("2a00::/12"), 3)
	tr.insert(netip.MustParsePrefix("3000::/4"), 4)
	writes := func(what string, want int, f func()) {
		t.Helper()
		before := tr.jumpWrites
		f()
		if got := tr.jumpWrites - before; got != want {
			t.Errorf("%s: %d jump entries written, want %d", what, got, want)
		}
	}
	def := netip.MustParsePrefix("::/0")
	writes("4,066 withdrawals of ::/0, which is not there", 0, func() {
		for range updateNLRI {
			if tr.remove(def) != 0 {
				t.Fatal("::/0 withdrawn")
			}
		}
	})
	writes("a withdrawal of a /48 that is not there", 0, func() { tr.remove(netip.MustParsePrefix("2001:db8:1::/48")) })
	writes("a withdrawal of a /8 that is not there", 0, func() { tr.remove(netip.MustParsePrefix("2b00::/8")) })
	// ::/0 is the route of every block but those of 2a00::/8 (256) and 3000::/4 (4,096).
	writes("the announcement of ::/0", 1<<16-256-4096, func() { tr.insert(def, 5) })
	writes("the same announcement again", 0, func() { tr.insert(def, 5) })
	writes("::/0 with other attributes", 1<<16-256-4096, func() { tr.insert(def, 6) })
	writes("a /32 announced again with other attributes", 1, func() { tr.insert(netip.MustParsePrefix("2001:db8::/32"), 7) })
	writes("2a00::/8 withdrawn: its blocks outside 2a00::/12 get ::/0", 256-16, func() { tr.remove(netip.MustParsePrefix("2a00::/8")) })
	writes("the withdrawal of ::/0", 1<<16-16-4096, func() { tr.remove(def) })
	for a, want := range map[string]uint32{"2001:db8::1": 7, "2a00::1": 3, "2a10::1": 0, "3fff::1": 4, "::1": 0} {
		if got := tr.lookup(netip.MustParseAddr(a)); got != want {
			t.Errorf("lookup %s = %d, want %d", a, got, want)
		}
	}
	checkJump(t, tr)
}

// checkJump fails unless the jump table is what computing each block from the trie gives.
func checkJump(t *testing.T, tr *trie) {
	t.Helper()
	got := append([]jump(nil), tr.jump...)
	for b := range tr.jump {
		tr.fill(uint64(b))
	}
	for b := range got {
		if got[b] != tr.jump[b] {
			t.Fatalf("block %04x: jump %+v, want %+v", b, got[b], tr.jump[b])
		}
	}
}

// TestJumpTableMatchesFill checks the jump table kept up to date route by route against one
// computed block by block, and lookups against a scan of every prefix, through announcements,
// changes and withdrawals of prefixes of every length over the whole address space, most of
// them of 15 bits or less.
func TestJumpTableMatchesFill(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	addr := func() netip.Addr {
		var b [16]byte
		// a few blocks in a few /8s, so that short and long prefixes overlap
		b[0], b[1], b[2] = []byte{0x00, 0x20, 0x2a, 0x80, 0xff}[rng.IntN(5)], byte(rng.IntN(4)), byte(rng.IntN(256))
		return netip.AddrFrom16(b)
	}
	tr := newTrie()
	want := map[netip.Prefix]uint32{}
	for i := range 3000 {
		bits := rng.IntN(17)
		if rng.IntN(4) == 0 {
			bits = 16 + rng.IntN(113)
		}
		p, _ := addr().Prefix(bits)
		if rng.IntN(3) == 0 {
			if got, w := tr.remove(p), want[p]; got != w {
				t.Fatalf("remove %s = %d, want %d", p, got, w)
			}
			delete(want, p)
		} else {
			a := uint32(1 + rng.IntN(3)) // often the same again
			if got, w := tr.insert(p, a), want[p]; got != w {
				t.Fatalf("insert %s = %d, want %d", p, got, w)
			}
			want[p] = a
		}
		if i%50 != 0 {
			continue
		}
		if tr.jump != nil {
			checkJump(t, tr)
		}
		for range 50 {
			a := addr()
			best := longest(want, a)
			if got := tr.lookup(a); got != best {
				t.Fatalf("lookup %s = %d, want %d (step %d)", a, got, best, i)
			}
		}
	}
	for p := range want {
		tr.remove(p)
	}
	checkJump(t, tr)
	if live := tr.size() - len(tr.free); live != 1 {
		t.Errorf("after removing every route, %d nodes remain, want the root", live)
	}
}
