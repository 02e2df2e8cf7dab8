package netctx

// trie is a binary trie over the bits of an address (up to 128, most significant first),
// its nodes in one slice so that a lookup follows indexes rather than pointers. Node 0 is the
// root; a child index of 0 means no child (the root is nobody's child).
type trie struct {
	nodes []trieNode
}

type trieNode struct {
	child [2]int32
	value int32 // -1: no network ends here
}

// bit returns bit i (0 the most significant) of the 128-bit address hi:lo.
func bit(hi, lo uint64, i int) int {
	if i < 64 {
		return int(hi>>(63-i)) & 1
	}
	return int(lo>>(127-i)) & 1
}

func (t *trie) insert(hi, lo uint64, bits int, value int32) {
	if len(t.nodes) == 0 {
		t.nodes = append(t.nodes, trieNode{value: -1})
	}
	n := int32(0)
	for i := 0; i < bits; i++ {
		b := bit(hi, lo, i)
		next := t.nodes[n].child[b]
		if next == 0 {
			next = int32(len(t.nodes))
			t.nodes = append(t.nodes, trieNode{value: -1})
			t.nodes[n].child[b] = next
		}
		n = next
	}
	t.nodes[n].value = value
}

// lookup returns the value of the longest prefix holding the address (of width bits), or -1.
func (t *trie) lookup(hi, lo uint64, width int) int32 {
	if len(t.nodes) == 0 {
		return -1
	}
	nodes := t.nodes
	found := nodes[0].value
	n := int32(0)
	for i := 0; i < width; i++ {
		n = nodes[n].child[bit(hi, lo, i)]
		if n == 0 {
			break
		}
		if v := nodes[n].value; v >= 0 {
			found = v
		}
	}
	return found
}

// path fills out with the values of the prefixes holding the address (of width bits), the
// shortest first, and returns how many.
func (t *trie) path(hi, lo uint64, width int, out *[129]int32) int {
	if len(t.nodes) == 0 {
		return 0
	}
	nodes := t.nodes
	k := 0
	if v := nodes[0].value; v >= 0 {
		out[k] = v
		k++
	}
	n := int32(0)
	for i := 0; i < width; i++ {
		n = nodes[n].child[bit(hi, lo, i)]
		if n == 0 {
			break
		}
		if v := nodes[n].value; v >= 0 {
			out[k] = v
			k++
		}
	}
	return k
}
