package pvql

import (
	"fmt"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

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
				if g.key(i) != key(i) || gr.sums[0] != uint64(3*i+3) {
					t.Fatalf("group %d = %+v %v, want key %+v and sum %d", i, g.key(i).time, gr.sums[0], key(i).time, 3*i+3)
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

// TestGroupsPacked keeps groups of a statement BY every key, whose names differ where their
// numbers do not, and checks that each group's key reads back whole and that a key differing
// in one name only is a group of its own.
func TestGroupsPacked(t *testing.T) {
	t.Parallel()
	for l := records.LayerTransport; l < records.NumLayers; l++ {
		testGroupsPacked(t, layout(everyKey(l)))
	}
}

func testGroupsPacked(t *testing.T, slots []slot) {
	g := groupsOf(slots)
	row := func(i int) gkey {
		var vals []records.Value
		for _, s := range slots {
			switch {
			case s.time:
				vals = append(vals, records.Value{Lo: uint64(i / 7 * 60)})
			case s.str:
				vals = append(vals, records.Value{Str: fmt.Sprint("s", i%3)})
			default:
				vals = append(vals, records.Value{Hi: uint64(i % 2), Lo: uint64(i % 5)})
			}
			for range s.extra {
				vals = append(vals, records.Value{Str: fmt.Sprint("name", i)})
			}
		}
		var k gkey
		setKey(slots, &k, vals)
		return k
	}
	const n = groupBlock + 100
	for i := range n {
		g.at(row(i))[0] += uint64(i)
	}
	if g.len() != n {
		t.Fatalf("%d groups, want %d", g.len(), n)
	}
	for i := range n {
		if k := g.key(i); k != row(i) {
			t.Fatalf("group %d has key %+v, want %+v", i, k, row(i))
		}
		if g.at(row(i))[0] != uint64(i) || g.len() != n {
			t.Fatalf("key %d does not find its group again", i)
		}
	}
}

// everyKey is every key a statement of layer l may take once, time first.
func everyKey(l records.Layer) []key {
	keys := []key{{kind: kTime, n: 60}}
	for k := range keyKinds {
		if kl, ok := keyLayers[keyKind(k)]; keyKind(k) != kTime && (!ok || kl == l) {
			keys = append(keys, key{kind: keyKind(k)})
		}
	}
	return keys
}
