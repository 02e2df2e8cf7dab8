package pvql

import "testing"

// TestGroups adds groups past several blocks, with keys of one hash (as colliding hashes would
// be) and keys of their own, and checks that each key finds its own sums again and that the
// groups stay in order of arrival.
func TestGroups(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		at   func(g *groups, k gkey) *sums
	}{
		{"maphash", (*groups).at},
		{"own hashes", func(g *groups, k gkey) *sums { return &g.atHash(k, uint64(k.time)).sums }},
		{"one hash for three keys", func(g *groups, k gkey) *sums { return &g.atHash(k, uint64(k.time/3)).sums }},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := newGroups()
			at := func(k gkey) *sums { return c.at(g, k) }
			const n = 3*groupBlock + 7
			key := func(i int) gkey {
				return gkey{time: int64(i), w: [maxWords]uint64{uint64(i % 5)}, s: [maxStrings]string{"app"}}
			}
			for round := range 3 {
				for i := range n {
					at(key(i))[0] += uint64(i + round)
				}
			}
			if g.len() != n {
				t.Fatalf("%d groups, want %d", g.len(), n)
			}
			for i := range n {
				gr := g.group(i)
				if gr.key != key(i) || gr.sums[0] != uint64(3*i+3) {
					t.Fatalf("group %d = %+v %v, want key %+v and sum %d", i, gr.key.time, gr.sums[0], key(i).time, 3*i+3)
				}
				if at(key(i)) != &gr.sums {
					t.Fatalf("key %d finds other sums than group %d's", i, i)
				}
			}
			if other := (gkey{time: 1, s: [maxStrings]string{"other"}}); at(other)[0] != 0 || g.len() != n+1 {
				t.Fatalf("a new key sharing a hash did not get a new group")
			}
		})
	}
}
