package pvql

import (
	"cmp"
	"hash/maphash"
	"math"
	"slices"
	"strings"

	"github.com/fnapi/fnapi/examples/dataservice/histogram"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// gkey identifies a group: the values of the statement's keys, placed by its layout (a time in
// time, strings in s, other values in words of w); unused fields stay zero.
type gkey struct {
	time int64
	w    [maxWords]uint64
	s    [maxStrings]string
}

// maxStrings is how many string slots a gkey holds: every string key and extra name at once
// (TestDescriptors checks).
const maxStrings = 13

// slot is where one BY key's value lives in a gkey.
type slot struct {
	time bool
	str  bool
	word int // first word in w, or with str the index in s
	typ  *keyType
	// at is the index of the key's value in a records.Row's Keys; its extra names (keyKinds'
	// extra) follow it there, and live in s at the indexes extra.
	at    int
	extra []int
}

// layout places the keys of a statement in a gkey.
func layout(keys []key) []slot {
	out := make([]slot, len(keys))
	word, strs, at := 0, 0, 0
	for i, k := range keys {
		t := keyKinds[k.kind].typ
		out[i] = slot{time: k.kind == kTime, str: t.words == 0 && k.kind != kTime, word: word, typ: t, at: at}
		switch {
		case out[i].str:
			out[i].word = strs
			strs++
		case !out[i].time:
			word += t.words
		}
		for range keyKinds[k.kind].extra {
			out[i].extra = append(out[i].extra, strs)
			strs++
		}
		at += 1 + len(keyKinds[k.kind].extra)
	}
	return out
}

// setKey sets k to the values of a row's keys, placed by slots.
func setKey(slots []slot, k *gkey, keys []records.Value) {
	for _, s := range slots {
		s.set(k, keys[s.at])
		for j, e := range s.extra {
			k.s[e] = keys[s.at+1+j].Str
		}
	}
}

// render returns the key's value in k as a Row shows it.
func (s slot) render(k *gkey) any {
	var extra []string
	for _, e := range s.extra {
		extra = append(extra, k.s[e])
	}
	return s.typ.render(s.get(k), extra)
}

func (s slot) set(k *gkey, v records.Value) {
	switch {
	case s.time:
		k.time = int64(v.Lo)
	case s.str:
		k.s[s.word] = v.Str
	case s.typ.words == 2:
		k.w[s.word], k.w[s.word+1] = v.Hi, v.Lo
	default:
		k.w[s.word] = v.Lo
	}
}

func (s slot) get(k *gkey) records.Value {
	switch {
	case s.time:
		return records.Value{Lo: uint64(k.time)}
	case s.str:
		return records.Value{Str: k.s[s.word]}
	case s.typ.words == 2:
		return records.Value{Hi: k.w[s.word], Lo: k.w[s.word+1]}
	}
	return records.Value{Lo: k.w[s.word]}
}

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

// eval computes x on s; a division by zero is NaN, which propagates.
func eval(x expr, s *sums) float64 {
	switch x := x.(type) {
	case numberExpr:
		return float64(x)
	case metric:
		if parts := metrics[x].times; parts != nil {
			v := 0.0
			for _, p := range parts {
				if s[p.samples] == 0 {
					return math.NaN()
				}
				v += float64(s[p.sum]) / float64(s[p.samples]) / 1e6
			}
			return v
		}
		var t uint64
		for _, b := range metrics[x].sums {
			t = records.AddSum(t, s[b])
		}
		return float64(t)
	case *binaryExpr:
		l, r := eval(x.l, s), eval(x.r, s)
		switch x.op {
		case '+':
			return l + r
		case '-':
			return l - r
		case '*':
			return l * r
		}
		if r == 0 {
			return math.NaN()
		}
		return l / r
	case *baselineExpr:
		return evalBaseline(x, s)
	case *quantileExpr:
		return evalQuantile(x, s)
	}
	return math.NaN()
}

// finalValue is eval with every non-finite result made NaN (null).
func finalValue(x expr, s *sums) float64 {
	v := eval(x, s)
	if math.IsInf(v, 0) {
		return math.NaN()
	}
	return v
}

// match evaluates a HAVING condition on a group's sums; a comparison with null is false.
func match(f filter, s *sums) bool {
	switch f := f.(type) {
	case *andFilter:
		for _, t := range f.terms {
			if !match(t, s) {
				return false
			}
		}
		return true
	case *orFilter:
		for _, t := range f.terms {
			if match(t, s) {
				return true
			}
		}
		return false
	case *notFilter:
		return !match(f.x, s)
	case *valueFilter:
		v := finalValue(f.x, s)
		if math.IsNaN(v) {
			return false
		}
		switch f.op {
		case opEq:
			return v == f.nums[0]
		case opNe:
			return v != f.nums[0]
		case opLt:
			return v < f.nums[0]
		case opLe:
			return v <= f.nums[0]
		case opGt:
			return v > f.nums[0]
		case opGe:
			return v >= f.nums[0]
		}
		for _, n := range f.nums {
			if v == n {
				return true
			}
		}
	}
	return false
}

// compareValuesDesc orders numbers descending with NaN (null) after every number.
func compareValuesDesc(a, b float64) int {
	switch an, bn := math.IsNaN(a), math.IsNaN(b); {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return cmp.Compare(b, a)
}

// compareKeys orders a and b by the keys in layout order, ascending: times as signed numbers,
// other values by their halves, then their text; time keys are skipped when withTime is false.
func compareKeys(slots []slot, a, b *gkey, withTime bool) int {
	for _, s := range slots {
		if s.time {
			if c := cmp.Compare(a.time, b.time); withTime && c != 0 {
				return c
			}
			continue
		}
		va, vb := s.get(a), s.get(b)
		if c := cmp.Or(cmp.Compare(va.Hi, vb.Hi), cmp.Compare(va.Lo, vb.Lo), strings.Compare(va.Str, vb.Str)); c != 0 {
			return c
		}
		for _, e := range s.extra {
			if c := strings.Compare(a.s[e], b.s[e]); c != 0 {
				return c
			}
		}
	}
	return 0
}
