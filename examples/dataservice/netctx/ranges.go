package netctx

import "slices"

// ranges4 maps every IPv4 address to a value (-1 for none) through disjoint ranges sorted by
// their first address, with an index by the address's top 16 bits, so that a lookup is one
// bucket's short binary search: about two cache misses, where a trie walk takes up to 32.
type ranges4 struct {
	starts []uint32 // starts[0] is 0; range i covers [starts[i], starts[i+1])
	values []int32
	index  []uint32 // index[b]: the first range starting at or after b<<16; len 65537
}

// rangeBuilder collects ranges in address order.
type rangeBuilder struct {
	starts []uint32
	values []int32
}

// add makes value the value from start on; ranges come in increasing start.
func (b *rangeBuilder) add(start uint32, value int32) {
	n := len(b.starts)
	switch {
	case n > 0 && b.values[n-1] == value:
		return // the same value goes on
	case n > 0 && b.starts[n-1] == start:
		b.values[n-1] = value
		if n > 1 && b.values[n-2] == value {
			b.starts, b.values = b.starts[:n-1], b.values[:n-1]
		}
		return
	}
	b.starts = append(b.starts, start)
	b.values = append(b.values, value)
}

// span gives [first, last] the value, and what follows no value (-1) until the next span.
func (b *rangeBuilder) span(first, last uint32, value int32) {
	if len(b.starts) == 0 && first != 0 {
		b.add(0, -1)
	}
	b.add(first, value)
	if last != ^uint32(0) {
		b.add(last+1, -1)
	}
}

func (b *rangeBuilder) build() *ranges4 {
	if len(b.starts) == 0 || b.starts[0] != 0 {
		b.starts = slices.Insert(b.starts, 0, 0)
		b.values = slices.Insert(b.values, 0, -1)
	}
	r := &ranges4{starts: slices.Clip(b.starts), values: slices.Clip(b.values), index: make([]uint32, 65537)}
	i := 0
	for bucket := range 65537 {
		for i < len(r.starts) && uint64(r.starts[i]) < uint64(bucket)<<16 {
			i++
		}
		r.index[bucket] = uint32(i)
	}
	return r
}

// lookup returns the value of the range holding a.
func (r *ranges4) lookup(a uint32) int32 {
	b := a >> 16
	lo, hi := int(r.index[b]), int(r.index[b+1])
	// the first range in [lo, hi) starting after a; the one before it holds a
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if r.starts[m] <= a {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return r.values[lo-1]
}

// ranges walks the trie of IPv4 prefixes (in its first 32 bits) into ranges: each address
// takes the value of its longest prefix.
func (t *trie) ranges() *ranges4 {
	var b rangeBuilder
	if len(t.nodes) == 0 {
		return b.build()
	}
	var walk func(n int32, depth int, start uint32, inherited int32)
	walk = func(n int32, depth int, start uint32, inherited int32) {
		node := t.nodes[n]
		if node.value >= 0 {
			inherited = node.value
		}
		if node.child == [2]int32{} {
			b.add(start, inherited)
			return
		}
		for side, c := range node.child {
			s := start
			if side == 1 {
				s |= 1 << (31 - depth)
			}
			if c == 0 {
				b.add(s, inherited)
			} else {
				walk(c, depth+1, s, inherited)
			}
		}
	}
	walk(0, 0, 0, -1)
	return b.build()
}
