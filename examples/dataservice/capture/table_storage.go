package capture

// unlink takes conversation i out of the list.
func (t *Table) unlink(i int32) {
	c := t.convs.at(i)
	if c.prev >= 0 {
		t.convs.at(c.prev).next = c.next
	} else {
		t.head = c.next
	}
	if c.next >= 0 {
		t.convs.at(c.next).prev = c.prev
	} else {
		t.tail = c.prev
	}
	c.prev, c.next = -1, -1
}

// touch moves conversation i to the head of the list.
func (t *Table) touch(i int32) {
	if t.head == i {
		return
	}
	c := t.convs.at(i)
	if c.prev >= 0 || c.next >= 0 || t.tail == i {
		t.unlink(i)
	}
	c.next = t.head
	if t.head >= 0 {
		t.convs.at(t.head).prev = i
	}
	t.head = i
	if t.tail < 0 {
		t.tail = i
	}
}

// blockLen is how many conversations a block of the table's storage holds (192 KiB). The
// table grows a block at a time and never moves a conversation: growing one slice copied every
// conversation at each doubling, most of the CPU of a burst of new ones (BENCHMARKS.md).
const blockLen = 256

// blocks holds the table's conversations, numbered from 0, in blocks of blockLen.
type blocks struct {
	b []*[blockLen]conv
	n int32
}

// at returns conversation i (i < n).
func (s *blocks) at(i int32) *conv { return &s.b[i/blockLen][i%blockLen] }

// add numbers one more conversation, zero, and returns its number.
func (s *blocks) add() int32 {
	if int(s.n) == len(s.b)*blockLen {
		s.b = append(s.b, new([blockLen]conv))
	}
	s.n++
	return s.n - 1
}
