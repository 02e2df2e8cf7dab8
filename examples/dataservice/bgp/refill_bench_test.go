package bgp

import (
	"math/rand/v2"
	"net/netip"
	"testing"
)

// updateNLRI is the most ::/0 withdrawals one UPDATE of 4,096 bytes carries in MP_UNREACH_NLRI
// (1 byte each).
const updateNLRI = 4096 - 19 - 4 - 4 - 3

// v6Table is a trie of n IPv6 routes, /32 to /48, spread over the /16 blocks of 2000::/4, and
// a few shorter ones (/8 to /15).
func v6Table(n int) *trie {
	rng := rand.New(rand.NewPCG(3, 4))
	t := newTrie()
	for i := range n {
		var b [16]byte
		b[0], b[1], b[2], b[3], b[4], b[5] = 0x20|byte(rng.IntN(16)), byte(rng.IntN(256)), byte(rng.IntN(256)), byte(rng.IntN(256)), byte(rng.IntN(256)), byte(rng.IntN(256))
		bits := 32 + rng.IntN(17)
		if i%500 == 0 {
			bits = 8 + rng.IntN(8)
		}
		p, _ := netip.AddrFrom16(b).Prefix(bits)
		t.insert(p, uint32(1+i%100))
	}
	return t
}

// BenchmarkWithdrawAbsentDefault6 is one UPDATE's withdrawals of ::/0, a route the router does
// not have, from a table of 10,000 IPv6 routes: what the speaker's lock is held for.
func BenchmarkWithdrawAbsentDefault6(b *testing.B) {
	t := v6Table(10_000)
	p := netip.MustParsePrefix("::/0")
	for b.Loop() {
		for range updateNLRI {
			t.remove(p)
		}
	}
}

// BenchmarkDefault6Churn is as many real announcements and withdrawals of ::/0 (each a change
// of every /16 block's route).
func BenchmarkDefault6Churn(b *testing.B) {
	t := v6Table(10_000)
	p := netip.MustParsePrefix("::/0")
	for b.Loop() {
		for range updateNLRI {
			t.insert(p, 1000)
			t.remove(p)
		}
	}
}

// BenchmarkShortPrefixChurn6 is as many real announcements and withdrawals of IPv6 prefixes of
// 0 to 15 bits (the lengths in turn, random addresses outside the table's 2000::/4).
func BenchmarkShortPrefixChurn6(b *testing.B) {
	t := v6Table(10_000)
	rng := rand.New(rand.NewPCG(5, 6))
	ps := make([]netip.Prefix, updateNLRI)
	for i := range ps {
		var a [16]byte
		a[0], a[1] = byte(rng.IntN(240)), byte(rng.IntN(256))
		if a[0] >= 0x20 {
			a[0] += 0x10
		}
		ps[i], _ = netip.AddrFrom16(a).Prefix(i % 16)
	}
	for b.Loop() {
		for _, p := range ps {
			if t.insert(p, 1000) != 0 {
				b.Fatalf("%s is in the table already", p)
			}
			t.remove(p)
		}
	}
}

// worstUpdate is the IPv6 prefixes of at most 15 bits whose changes write the most jump
// entries one UPDATE of 4,096 bytes can carry: ::/0 (1 byte in MP_(UN)REACH_NLRI) and every
// prefix of 1 to 9 bits (2 or 3 bytes), 65,536 entries a length, and 503 of the /10s (64
// entries each): 4,066 bytes of NLRI, shortest first.
func worstUpdate() []netip.Prefix {
	var ps []netip.Prefix
	for bits := range 11 {
		n := 1 << bits
		if bits == 10 {
			n = 503
		}
		for i := range n {
			var a [16]byte
			a[0], a[1] = byte(i<<(16-bits)>>8), byte(i<<(16-bits))
			ps = append(ps, netip.PrefixFrom(netip.AddrFrom16(a), bits))
		}
	}
	return ps
}

// BenchmarkShortPrefixWorstUpdate is the jump table's cost of the worst UPDATE of real
// changes of short IPv6 prefixes: one op is two UPDATEs, the withdrawal of worstUpdate's
// prefixes (longest first, so that none is below a longer one still there) and their
// announcement again (shortest first, so that none is above one already there).
func BenchmarkShortPrefixWorstUpdate(b *testing.B) {
	t := v6Table(10_000)
	ps := worstUpdate()
	for _, p := range ps {
		t.insert(p, 1000)
	}
	for b.Loop() {
		for i := len(ps) - 1; i >= 0; i-- {
			t.remove(ps[i])
		}
		for _, p := range ps {
			t.insert(p, 1000)
		}
	}
}
