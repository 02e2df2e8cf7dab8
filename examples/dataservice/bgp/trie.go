package bgp

import (
	"math/bits"
	"net/netip"
	"unsafe"
)

// trie is a path-compressed binary trie of prefixes (one address family of one router), its
// nodes in blocks of blockSize addressed by index so that a full table is a few hundred
// allocations the garbage collector does not walk node by node, and growing never copies them. A node holds the index of the route's
// attributes in the speaker's interned set (0: no route at that node, a branch only).
// Not safe for concurrent use: the Speaker's lock guards it.
//
// A jump table indexed by an address's first 16 bits holds, for each such block, the route
// of the longest prefix of at most 15 bits covering it and the node where a lookup goes on:
// a lookup follows a handful of nodes below the block instead of some 20 from the root (each
// one a cache miss in a full table). IPv4 lookups go through dir4 instead (three loads at
// most); IPv6 ones stay on the trie with the jump table.
//
// The jump table changes only with a route that changes, and then only where it must: a
// prefix of 16 bits or more is one block's entry; a shorter one the route of the blocks it is
// the longest prefix of at most 15 bits for, the blocks of longer such prefixes left alone. A
// withdrawal of a route the router does not have, or an announcement of a route it has, costs
// a walk down the trie and nothing else; a real change of ::/0 costs at most 65,536 stores.
type trie struct {
	nodes  [][]node // the first block grows up to blockSize, the next are made whole; node 0 is the root, the prefix of length 0
	free   []uint32
	routes int
	jump   []jump // 1<<16 entries once an IPv6 route is added
	dir    *dir4  // IPv4 lookups, once an IPv4 route is added
	// jumpWrites counts the jump entries written, for the tests.
	jumpWrites int
}

// jump is where a lookup of an address of one /16 block starts: the attributes found above it
// and the node to go on from: the topmost node within the block, of 16 bits or more (0: none).
type jump struct{ attrs, resume uint32 }

type node struct {
	hi, lo uint64 // the prefix's bits, masked to its length
	child  [2]uint32
	attrs  uint32
	bits   uint8
}

// blockSize is the number of nodes of a block (256 KB).
const blockSize = 1 << 13

func newTrie() *trie { return &trie{nodes: [][]node{make([]node, 1, 64)}} }

// at returns node i.
func (t *trie) at(i uint32) *node { return &t.nodes[i/blockSize][i%blockSize] }

// size is the number of nodes, free ones included.
func (t *trie) size() int { return (len(t.nodes)-1)*blockSize + len(t.nodes[len(t.nodes)-1]) }

// bytes is the memory the nodes take.
func (t *trie) bytes() int {
	n := 0
	for _, b := range t.nodes {
		n += cap(b)
	}
	return n * int(unsafe.Sizeof(node{}))
}

// key returns an address as 128 bits, an IPv4 address in the first 32.
func key(a netip.Addr) (hi, lo uint64) {
	if a.Is4() {
		b := a.As4()
		return uint64(b[0])<<56 | uint64(b[1])<<48 | uint64(b[2])<<40 | uint64(b[3])<<32, 0
	}
	b := a.As16()
	for i := range 8 {
		hi = hi<<8 | uint64(b[i])
		lo = lo<<8 | uint64(b[8+i])
	}
	return hi, lo
}

func mask(hi, lo uint64, n uint8) (uint64, uint64) {
	switch {
	case n == 0:
		return 0, 0
	case n < 64:
		return hi &^ (^uint64(0) >> n), 0
	case n < 128:
		return hi, lo &^ (^uint64(0) >> (n - 64))
	}
	return hi, lo
}

func bit(hi, lo uint64, i uint8) int {
	if i < 64 {
		return int(hi>>(63-i)) & 1
	}
	return int(lo>>(127-i)) & 1
}

// common is the length of the prefix two keys share.
func common(h1, l1, h2, l2 uint64) uint8 {
	if x := h1 ^ h2; x != 0 {
		return uint8(bits.LeadingZeros64(x))
	}
	return uint8(64 + bits.LeadingZeros64(l1^l2))
}

func (t *trie) alloc(hi, lo uint64, n uint8, attrs uint32) uint32 {
	hi, lo = mask(hi, lo, n)
	nd := node{hi: hi, lo: lo, bits: n, attrs: attrs}
	if k := len(t.free); k > 0 {
		i := t.free[k-1]
		t.free = t.free[:k-1]
		*t.at(i) = nd
		return i
	}
	last := &t.nodes[len(t.nodes)-1]
	if len(*last) == blockSize {
		t.nodes = append(t.nodes, make([]node, 0, blockSize))
		last = &t.nodes[len(t.nodes)-1]
	}
	*last = append(*last, nd)
	return uint32(t.size() - 1)
}

// insert sets the route of a prefix and returns the attributes it replaces (0: none).
func (t *trie) insert(p netip.Prefix, attrs uint32) uint32 {
	old := t.add(p, attrs)
	if old == attrs { // the route it had: nothing changed
		return old
	}
	if !p.Addr().Is4() {
		t.refill(p)
	} else {
		if t.dir == nil {
			t.dir = new(dir4)
		}
		t.dir.set(v4(p.Addr()), uint8(p.Bits()), attrs)
	}
	return old
}

func v4(a netip.Addr) uint32 {
	b := a.As4()
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

func (t *trie) add(p netip.Prefix, attrs uint32) uint32 {
	hi, lo := key(p.Addr())
	n := uint8(p.Bits())
	hi, lo = mask(hi, lo, n)
	cur := uint32(0)
	for {
		if t.at(cur).bits == n {
			old := t.at(cur).attrs
			t.at(cur).attrs = attrs
			if old == 0 {
				t.routes++
			}
			return old
		}
		b := bit(hi, lo, t.at(cur).bits)
		c := t.at(cur).child[b]
		if c == 0 {
			leaf := t.alloc(hi, lo, n, attrs)
			t.at(cur).child[b] = leaf
			t.routes++
			return 0
		}
		cn := *t.at(c)
		cl := min(common(cn.hi, cn.lo, hi, lo), cn.bits, n)
		if cl == cn.bits {
			cur = c
			continue
		}
		var mid uint32
		if cl == n {
			mid = t.alloc(hi, lo, n, attrs)
		} else {
			mid = t.alloc(hi, lo, cl, 0)
			leaf := t.alloc(hi, lo, n, attrs)
			t.at(mid).child[bit(hi, lo, cl)] = leaf
		}
		t.at(mid).child[bit(cn.hi, cn.lo, cl)] = c
		t.at(cur).child[b] = mid
		t.routes++
		return 0
	}
}

// remove deletes the route of a prefix and returns its attributes (0: there was none).
func (t *trie) remove(p netip.Prefix) uint32 {
	old := t.delete(p)
	if old == 0 { // no such route: nothing changed
		return 0
	}
	if !p.Addr().Is4() {
		t.refill(p)
	} else {
		hi, lo := key(p.Addr())
		attrs, bits := t.cover(hi, lo, uint8(p.Bits()))
		t.dir.unset(v4(p.Addr()), uint8(p.Bits()), attrs, bits)
	}
	return old
}

// cover returns the attributes and length of the longest prefix shorter than n covering a key
// (0, 0: none).
func (t *trie) cover(hi, lo uint64, n uint8) (attrs uint32, bits uint8) {
	cur := uint32(0)
	for {
		nd := t.at(cur)
		if nd.bits >= n || nd.bits > 0 && common(nd.hi, nd.lo, hi, lo) < nd.bits {
			return attrs, bits
		}
		if nd.attrs != 0 {
			attrs, bits = nd.attrs, nd.bits
		}
		if cur = nd.child[bit(hi, lo, nd.bits)]; cur == 0 {
			return attrs, bits
		}
	}
}

func (t *trie) delete(p netip.Prefix) uint32 {
	hi, lo := key(p.Addr())
	n := uint8(p.Bits())
	hi, lo = mask(hi, lo, n)
	parent, cur := uint32(0), uint32(0)
	for t.at(cur).bits < n {
		c := t.at(cur).child[bit(hi, lo, t.at(cur).bits)]
		if c == 0 {
			return 0
		}
		parent, cur = cur, c
	}
	nd := t.at(cur)
	if nd.bits != n || nd.hi != hi || nd.lo != lo || nd.attrs == 0 {
		return 0
	}
	old := nd.attrs
	nd.attrs = 0
	t.routes--
	t.prune(parent, cur)
	if parent != 0 && t.at(parent).attrs == 0 {
		// The parent may now be a branch with one child: find its own parent and splice it.
		gp := uint32(0)
		for x := uint32(0); x != parent; {
			gp = x
			x = t.at(x).child[bit(hi, lo, t.at(x).bits)]
		}
		t.prune(gp, parent)
	}
	return old
}

// prune removes a node without a route that has at most one child, linking its child (if
// any) to its parent. The root stays.
func (t *trie) prune(parent, cur uint32) {
	nd := *t.at(cur)
	if cur == 0 || nd.attrs != 0 || (nd.child[0] != 0 && nd.child[1] != 0) {
		return
	}
	only := nd.child[0] | nd.child[1]
	p := t.at(parent)
	if p.child[0] == cur {
		p.child[0] = only
	} else {
		p.child[1] = only
	}
	*t.at(cur) = node{}
	t.free = append(t.free, cur)
}

// refill updates the jump table after the route of a prefix changed (an IPv6 one). The
// nodes a change adds or removes are on the prefix's path. Those of 16 bits or more lie in the
// prefix's block, so that the topmost node within any other block stays (and its index: a node
// is never moved); only the prefix's block is computed again when the prefix has 16 bits or
// more. Those of at most 15 bits carry no route unless they are the prefix, so that a shorter
// prefix changes only the route of the blocks it is the longest prefix of at most 15 bits for.
func (t *trie) refill(p netip.Prefix) {
	if t.jump == nil {
		t.jump = make([]jump, 1<<16)
		for b := range t.jump {
			t.fill(uint64(b))
		}
		return
	}
	hi, lo := key(p.Addr())
	n := uint8(p.Bits())
	hi, lo = mask(hi, lo, n)
	if n >= 16 {
		t.fill(hi >> 48)
		return
	}
	attrs, _ := t.cover(hi, lo, n+1) // the prefix's route now, else the one of the longest prefix above it
	first, end := hi>>48, hi>>48+1<<(16-n)
	cur := uint32(0)
	for t.at(cur).bits < n {
		if cur = t.at(cur).child[bit(hi, lo, t.at(cur).bits)]; cur == 0 {
			t.paintRange(first, end, attrs) // no node below the prefix: no longer prefix either
			return
		}
	}
	if nd := t.at(cur); common(nd.hi, nd.lo, hi, lo) < n {
		t.paintRange(first, end, attrs) // the path leaves the prefix: nothing below it
		return
	}
	t.paint(cur, first, end, attrs, t.at(cur).bits == n)
}

// paint sets attrs as the route of the blocks [first, end) (those of a prefix of at most 15
// bits), whose topmost node within them is cur, but of the blocks of a longer prefix of at
// most 15 bits that has a route, below cur or cur itself unless top (the changed prefix's own
// node), which keep theirs.
func (t *trie) paint(cur uint32, first, end uint64, attrs uint32, top bool) {
	nd := t.at(cur)
	if nd.bits >= 16 {
		t.paintRange(first, end, attrs)
		return
	}
	from, to := nd.hi>>48, nd.hi>>48+1<<(16-nd.bits) // the node's blocks, within [first, end)
	t.paintRange(first, from, attrs)
	t.paintRange(to, end, attrs)
	if !top && nd.attrs != 0 {
		return
	}
	half := (to - from) / 2
	for c, next := range nd.child {
		lo := from + uint64(c)*half
		if next == 0 {
			t.paintRange(lo, lo+half, attrs)
		} else {
			t.paint(next, lo, lo+half, attrs, false)
		}
	}
}

// paintRange sets attrs as the route of the blocks [first, end).
func (t *trie) paintRange(first, end uint64, attrs uint32) {
	for b := first; b < end; b++ {
		t.jump[b].attrs = attrs
	}
	t.jumpWrites += int(end - first)
}

// fill computes the jump of block b: the nodes of fewer than 16 bits on its path are decided
// by its 16 bits; the first node of 16 bits or more is where lookups go on, if it lies within
// the block (else no prefix of 16 bits or more does).
func (t *trie) fill(b uint64) {
	t.jumpWrites++
	hi := b << 48
	best, cur := uint32(0), uint32(0)
	for {
		nd := t.at(cur)
		if nd.bits >= 16 {
			if nd.hi>>48 != b {
				cur = 0
			}
			t.jump[b] = jump{best, cur}
			return
		}
		if nd.bits > 0 && common(nd.hi, nd.lo, hi, 0) < nd.bits {
			break
		}
		if nd.attrs != 0 {
			best = nd.attrs
		}
		if cur = nd.child[bit(hi, 0, nd.bits)]; cur == 0 {
			break
		}
	}
	t.jump[b] = jump{best, 0}
}

// lookup returns the attributes of the longest prefix covering an address (0: none).
func (t *trie) lookup(a netip.Addr) uint32 {
	if a.Is4() {
		if t.dir == nil {
			return 0
		}
		return t.dir.lookup(v4(a))
	}
	if t.jump == nil {
		return 0
	}
	hi, lo := key(a)
	j := t.jump[hi>>48]
	best, cur := j.attrs, j.resume
	if cur == 0 {
		return best
	}
	for {
		nd := t.at(cur)
		if nd.bits > 0 && common(nd.hi, nd.lo, hi, lo) < nd.bits {
			return best
		}
		if nd.attrs != 0 {
			best = nd.attrs
		}
		if nd.bits >= 128 {
			return best
		}
		cur = nd.child[bit(hi, lo, nd.bits)]
		if cur == 0 {
			return best
		}
	}
}

// each calls f with the attributes of every route (to release them when the trie is dropped).
func (t *trie) each(f func(attrs uint32)) {
	for _, b := range t.nodes {
		for i := range b {
			if a := b[i].attrs; a != 0 {
				f(a)
			}
		}
	}
}
