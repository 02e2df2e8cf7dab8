package pvql

import (
	"hash/maphash"
	"slices"

	"github.com/fnapi/fnapi/examples/dataservice/histogram"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// sums holds a group's base sums, indexed by records.Sum, each saturated at records.MaxSum
// (added with records.AddSum) as the stores' are.
type sums [records.NumSums]uint64

// groups accumulates the sums of each group, merging the rows of several queries. Its groups
// live in blocks of groupBlock that never move, found by a hash of their key: a table of many
// groups (a month of BY time(60) has 43,200) is then never copied as it grows, and its index
// holds 16 bytes a group (hash, place, chain) rather than a copy of the key. A Go map keyed by
// gkey, with the keys and sums in slices beside it, allocated 1.3 KB a group (the slices grow
// by a quarter at a time at that size) and spent most of a long time series' reading faulting
// that in.
//
// The table keeps each group's key packed (packed): the time, the words and the strings of the
// statement's keys only, its strings as ids of the table's names. A gkey holds every key and
// name at once (328 bytes); a key of BY time(60) packs into 8.
type groups struct {
	seed  maphash.Seed
	index map[uint64]int32 // a group of each key hash; next chains those of the same hash
	next  []int32          // the group after each in its hash's chain, -1 at the end
	// blocks hold the groups in order of arrival; all but the last are full. keys holds their
	// packed keys, stride words a group, block by block.
	blocks [][]group
	keys   [][]uint64
	n      int
	packing
	names *names
}

// packing is which fields of a gkey a table's keys use, and so how many words (stride) a key
// packs into: its time when hasTime, its first words words, and its first strs string slots
// as ids of 32 bits, two a word. Hashing and comparing the 13 string slots of a gkey, most
// empty, made adding a row to a group twice as slow (BenchmarkGroups/groups=10).
type packing struct {
	hasTime      bool
	words, strs  int
	stride, wOff int // wOff is where the words start (after the time)
}

func packingOf(hasTime bool, words, strs int) packing {
	p := packing{hasTime: hasTime, words: words, strs: strs}
	if hasTime {
		p.wOff = 1
	}
	p.stride = p.wOff + words + (strs+1)/2
	return p
}

// names interns the strings of a table's keys: id 0 is "", so that a zero gkey packs to zeros.
type names struct {
	ids map[string]uint32
	s   []string
}

func newNames() *names { return &names{ids: map[string]uint32{"": 0}, s: []string{""}} }

// id returns the id of s, adding it when new.
func (n *names) id(s string) uint32 {
	id, ok := n.ids[s]
	if !ok {
		id = uint32(len(n.s))
		n.ids[s] = id
		n.s = append(n.s, s)
	}
	return id
}

// group is one group of a groups table: its sums (its key is the table's key(i)).
type group struct {
	sums sums
	// hists are the histograms of the query's Hists, nil without.
	hists []histogram.Histogram
}

// groupBlock is how many groups a block of a groups table holds. The first block grows to it
// as a slice does, so that the many small tables (a total, a TOP 10) stay small.
const groupBlock = 1024

// newGroups returns a groups table for keys that may use every field of a gkey.
func newGroups() *groups {
	return &groups{seed: maphash.MakeSeed(), index: map[uint64]int32{}, packing: packingOf(true, maxWords, maxStrings), names: newNames()}
}

// groupsOf returns a groups table for keys placed by slots: it keeps, hashes and compares the
// fields they use only.
func groupsOf(slots []slot) *groups {
	hasTime, words, strs := false, 0, 0
	for _, s := range slots {
		switch {
		case s.time:
			hasTime = true
		case s.str:
			strs = max(strs, s.word+1)
		default:
			words = max(words, s.word+s.typ.words)
		}
		for _, e := range s.extra {
			strs = max(strs, e+1)
		}
	}
	g := newGroups()
	g.packing = packingOf(hasTime, words, strs)
	return g
}

// len is the number of groups.
func (g *groups) len() int { return g.n }

// group returns group i (0 <= i < len()), in order of arrival. The pointer stays valid while
// no group is added; a group past the first block never moves.
func (g *groups) group(i int) *group { return &g.blocks[i/groupBlock][i%groupBlock] }

// packed returns the packed key of group i.
func (g *groups) packed(i int) []uint64 {
	at := i % groupBlock * g.stride
	return g.keys[i/groupBlock][at : at+g.stride : at+g.stride]
}

// key returns the key of group i.
func (g *groups) key(i int) gkey {
	var k gkey
	p := g.packed(i)
	if g.hasTime {
		k.time = int64(p[0])
	}
	copy(k.w[:g.words], p[g.wOff:])
	ids := p[g.wOff+g.words:]
	for j := range g.strs {
		k.s[j] = g.names.s[uint32(ids[j/2]>>(32*(j%2)))]
	}
	return k
}

// time returns the time of group i's key.
func (g *groups) time(i int) int64 {
	if !g.hasTime {
		return 0
	}
	return int64(g.keys[i/groupBlock][i%groupBlock*g.stride])
}

// at returns the sums of group k, adding the group when new.
func (g *groups) at(k gkey) *sums { return &g.atHash(k, g.hash(&k)).sums }

// same reports whether group i's key is k, reading the fields in use only.
func (g *groups) same(i int, k *gkey) bool {
	p := g.packed(i)
	if g.hasTime && int64(p[0]) != k.time {
		return false
	}
	if !slices.Equal(p[g.wOff:g.wOff+g.words], k.w[:g.words]) {
		return false
	}
	ids := p[g.wOff+g.words:]
	for j := range g.strs {
		if g.names.s[uint32(ids[j/2]>>(32*(j%2)))] != k.s[j] {
			return false
		}
	}
	return true
}

// pack appends k's packed key to dst, naming its strings.
func (g *groups) pack(dst []uint64, k *gkey) []uint64 {
	if g.hasTime {
		dst = append(dst, uint64(k.time))
	}
	dst = append(dst, k.w[:g.words]...)
	for j := 0; j < g.strs; j += 2 {
		w := uint64(g.names.id(k.s[j]))
		if j+1 < g.strs {
			w |= uint64(g.names.id(k.s[j+1])) << 32
		}
		dst = append(dst, w)
	}
	return dst
}

// hash is k's hash: of its time, words and string slots in use. A few words are hashed one by
// one, more at once: hashing all 14 words of a key of one (BY server.port) took half the time
// of adding a row to its group (BenchmarkGroups/groups=10).
func (g *groups) hash(k *gkey) uint64 {
	var h uint64
	switch {
	case g.words > 4:
		h = maphash.Comparable(g.seed, struct {
			t int64
			w [maxWords]uint64
		}{k.time, k.w})
	case g.hasTime:
		h = maphash.Comparable(g.seed, k.time)
		fallthrough
	default:
		for i, w := range k.w[:g.words] {
			h = (h^maphash.Comparable(g.seed, w))*0x100000001b3 + uint64(i)
		}
	}
	for i := range k.s[:g.strs] {
		h = (h^maphash.String(g.seed, k.s[i]))*0x100000001b3 + uint64(i)
	}
	return h
}

// atGroup returns group k, adding it when new.
func (g *groups) atGroup(k gkey) *group { return g.atHash(k, g.hash(&k)) }

// find returns the group of key k of hash h, or -1 when it has none.
func (g *groups) find(k *gkey, h uint64) int {
	first, ok := g.index[h]
	if !ok {
		return -1
	}
	for i := first; i >= 0; i = g.next[i] {
		if g.same(int(i), k) {
			return int(i)
		}
	}
	return -1
}

// lookup returns the group of key k, or nil when it has none.
func (g *groups) lookup(k gkey) *group {
	if i := g.find(&k, g.hash(&k)); i >= 0 {
		return g.group(i)
	}
	return nil
}

// atHash returns the group of key k of hash h, adding it when new.
func (g *groups) atHash(k gkey, h uint64) *group {
	if i := g.find(&k, h); i >= 0 {
		return g.group(i)
	}
	first, ok := g.index[h]
	if !ok {
		first = -1
	}
	last := len(g.blocks) - 1
	if last < 0 || len(g.blocks[last]) == groupBlock {
		g.blocks = append(g.blocks, nil)
		g.keys = append(g.keys, nil)
		last++
		if last > 0 {
			g.blocks[last] = make([]group, 0, groupBlock)
			g.keys[last] = make([]uint64, 0, groupBlock*g.stride)
		}
	}
	g.blocks[last] = append(g.blocks[last], group{})
	g.keys[last] = g.pack(g.keys[last], &k)
	g.index[h] = int32(g.n)
	g.next = append(g.next, first)
	g.n++
	return &g.blocks[last][len(g.blocks[last])-1]
}
