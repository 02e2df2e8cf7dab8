package bgp

// dir4 answers IPv4 lookups in at most three dependent loads: a multibit table of strides
// 16-8-8, each entry the attributes of the longest prefix covering its addresses (prefixes
// expanded to the stride, as DIR-24-8 does), or the index of a chunk of 256 entries of the next
// stride when longer prefixes cut its block. A /16 block with longer prefixes takes a chunk of
// the second stride (1,280 bytes), a /24 with longer prefixes one of the third.
//
// The trie stays the table of record (it finds the route a withdrawal uncovers); dir4 follows
// each change of it. Beside each entry is the length of the prefix it holds (lens), read by
// updates only: an insertion of length n paints the entries of its range that hold a prefix of
// at most n bits, a withdrawal the entries that hold it (exactly n bits: no other prefix of that
// length covers them) with the route it uncovers. A chunk whose entries all became equal folds
// back into its parent's entry.
//
// Attribute indexes are below 1<<31 (they count the sets in use, at most the routes).
type dir4 struct {
	l1       [1 << 16]uint32
	l1lens   [1 << 16]uint8
	l2, l3   []uint32 // chunks of 256 entries
	l2l, l3l []uint8
	free2    []uint32
	free3    []uint32
}

// chunk marks an entry holding the index of a chunk of the next stride.
const chunk = 1 << 31

func (d *dir4) lookup(a uint32) uint32 {
	e := d.l1[a>>16]
	if e&chunk == 0 {
		return e
	}
	e = d.l2[int(e&^chunk)<<8|int(a>>8&0xff)]
	if e&chunk == 0 {
		return e
	}
	return d.l3[int(e&^chunk)<<8|int(a&0xff)]
}

// set paints prefix a/n with attrs (insert, or a replacement).
func (d *dir4) set(a uint32, n uint8, attrs uint32) {
	d.paint(a, n, func(v *uint32, l *uint8) {
		if *l <= n {
			*v, *l = attrs, n
		}
	})
}

// unset repaints the entries prefix a/n held with the route it uncovers (attrs 0: none), whose
// length is below n.
func (d *dir4) unset(a uint32, n uint8, attrs uint32, bits uint8) {
	d.paint(a, n, func(v *uint32, l *uint8) {
		if *l == n {
			*v, *l = attrs, bits
		}
	})
	d.fold(a, n)
}

// paint calls f on the entries of a/n's range, in the stride of its length, and on every entry
// of the chunks below them.
func (d *dir4) paint(a uint32, n uint8, f func(*uint32, *uint8)) {
	switch {
	case n <= 16:
		first := int(a >> 16)
		for i := first; i < first+1<<(16-n); i++ {
			d.each(&d.l1[i], &d.l1lens[i], 1, f)
		}
	case n <= 24:
		c := d.open(&d.l1[a>>16], &d.l1lens[a>>16], 2)
		first := c<<8 | int(a>>8&0xff)
		for i := first; i < first+1<<(24-n); i++ {
			d.each(&d.l2[i], &d.l2l[i], 2, f)
		}
	default:
		c := d.open(&d.l1[a>>16], &d.l1lens[a>>16], 2)
		i := c<<8 | int(a>>8&0xff)
		c = d.open(&d.l2[i], &d.l2l[i], 3)
		first := c<<8 | int(a&0xff)
		for i := first; i < first+1<<(32-n); i++ {
			f(&d.l3[i], &d.l3l[i])
		}
	}
}

// each calls f on an entry of stride level, or on every entry of its chunk.
func (d *dir4) each(v *uint32, l *uint8, level int, f func(*uint32, *uint8)) {
	if *v&chunk == 0 {
		f(v, l)
		return
	}
	c := int(*v &^ chunk)
	if level == 1 {
		for i := c << 8; i < c<<8+256; i++ {
			d.each(&d.l2[i], &d.l2l[i], 2, f)
		}
		return
	}
	for i := c << 8; i < c<<8+256; i++ {
		f(&d.l3[i], &d.l3l[i])
	}
}

// open returns the chunk of stride level an entry points to, making one that repeats the
// entry's route when it holds none.
func (d *dir4) open(v *uint32, l *uint8, level int) int {
	if *v&chunk != 0 {
		return int(*v &^ chunk)
	}
	vals, lens, free := &d.l2, &d.l2l, &d.free2
	if level == 3 {
		vals, lens, free = &d.l3, &d.l3l, &d.free3
	}
	var c int
	if k := len(*free); k > 0 {
		c = int((*free)[k-1])
		*free = (*free)[:k-1]
	} else {
		c = len(*vals) >> 8
		*vals = append(*vals, make([]uint32, 256)...)
		*lens = append(*lens, make([]uint8, 256)...)
	}
	for i := c << 8; i < c<<8+256; i++ {
		(*vals)[i], (*lens)[i] = *v, *l
	}
	*v, *l = chunk|uint32(c), 0
	return c
}

// fold folds the chunks on a/n's path whose entries became equal back into their parents'.
func (d *dir4) fold(a uint32, n uint8) {
	if n <= 16 {
		return
	}
	e := &d.l1[a>>16]
	if *e&chunk == 0 {
		return
	}
	c := int(*e &^ chunk)
	if n > 24 {
		i := c<<8 | int(a>>8&0xff)
		if d.l2[i]&chunk != 0 {
			c3 := int(d.l2[i] &^ chunk)
			if same(d.l3[c3<<8:c3<<8+256], d.l3l[c3<<8:c3<<8+256]) {
				d.l2[i], d.l2l[i] = d.l3[c3<<8], d.l3l[c3<<8]
				d.free3 = append(d.free3, uint32(c3))
			}
		}
	}
	if same(d.l2[c<<8:c<<8+256], d.l2l[c<<8:c<<8+256]) {
		*e, d.l1lens[a>>16] = d.l2[c<<8], d.l2l[c<<8]
		d.free2 = append(d.free2, uint32(c))
	}
}

// same reports whether a chunk's entries are equal routes (no chunk among them).
func same(vals []uint32, lens []uint8) bool {
	for i := range vals {
		if vals[i] != vals[0] || lens[i] != lens[0] || vals[i]&chunk != 0 {
			return false
		}
	}
	return true
}

// chunks returns the chunks of the second and third strides in use.
func (d *dir4) chunks() (int, int) {
	return len(d.l2)>>8 - len(d.free2), len(d.l3)>>8 - len(d.free3)
}

// bytes is the memory the table takes.
func (d *dir4) bytes() int {
	return len(d.l1)*5 + cap(d.l2)*4 + cap(d.l2l) + cap(d.l3)*4 + cap(d.l3l) + 4*(cap(d.free2)+cap(d.free3))
}
