package netctx

import (
	"cmp"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
)

// Bounds of the names a device or a file gives, in bytes: longer ones are cut at a
// character's boundary.
const (
	// MaxLabelLength is the longest exporter, interface or autonomous system name.
	MaxLabelLength = 255
	// MaxAliasLength is the longest interface alias (ifAlias).
	MaxAliasLength = 1024
)

// Interface names one interface of an exporter.
type Interface struct {
	// Index is the interface's ifIndex.
	Index uint32
	// Name is its ifName ("ge-0/0/1"), Alias its ifAlias (the operator's description).
	Name, Alias string
	// Speed is its ifHighSpeed, in Mbit/s; 0 when unknown.
	Speed uint64
}

// Device names an exporter and its interfaces.
type Device struct {
	Address    netip.Addr
	Name       string
	Interfaces map[uint32]Interface
}

// Names holds the names of exporters and their interfaces: those an SNMP poll found
// (SetPolled), and the operator's static ones (SetStatic) for what the poll did not name. It
// is safe for concurrent use; lookups do not allocate.
type Names struct {
	mu     sync.Mutex // serialises changes
	static map[netip.Addr]*Device
	polled map[netip.Addr]*Device
	merged atomic.Pointer[map[netip.Addr]*Device] // what lookups read: polled, else static
}

// SetStatic makes ds the static names, replacing the previous ones. Names are made clean
// (see Clean) as they are stored, as SetPolled's.
func (n *Names) SetStatic(ds []Device) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.static = make(map[netip.Addr]*Device, len(ds))
	for _, d := range ds {
		d := d.clean()
		n.static[d.Address] = &d
	}
	n.merge()
}

// SetPolled records what a poll found of one device, keeping the others'. Names are made
// clean as they are stored, whatever gave them: the names records take are valid UTF-8,
// printable and bounded, so that no name can fail the batch of records it joins.
func (n *Names) SetPolled(d Device) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.polled == nil {
		n.polled = map[netip.Addr]*Device{}
	}
	d = d.clean()
	n.polled[d.Address] = &d
	n.merge()
}

// forget drops what polls found of the device at a.
func (n *Names) forget(a netip.Addr) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, ok := n.polled[a]; ok {
		delete(n.polled, a)
		n.merge()
	}
}

// clean returns a copy of d with its address unmapped and its names clean.
func (d Device) clean() Device {
	c := Device{Address: d.Address.Unmap(), Name: Clean(d.Name, MaxLabelLength), Interfaces: make(map[uint32]Interface, len(d.Interfaces))}
	for k, i := range d.Interfaces {
		i.Name, i.Alias = Clean(i.Name, MaxLabelLength), Clean(i.Alias, MaxAliasLength)
		c.Interfaces[k] = i
	}
	return c
}

// Clean returns s fit to name something in records and answers, as every value a device or
// a file gives is made where it enters: each invalid UTF-8 byte becomes U+FFFD (the rest of a
// mostly readable name stays readable; a name made only of bad bytes shows as such rather than
// vanishing), each control character (C0, DEL, C1: line breaks, tabs, NUL padding) a space,
// bidirectional formatting characters are removed (they can make a name read backwards), spaces
// at both ends are trimmed, and the result is cut to at most max bytes at a character's
// boundary.
func Clean(s string, max int) string {
	if plain(s, max) {
		return s
	}
	var b strings.Builder
	b.Grow(min(len(s), max))
	for _, r := range s { // an invalid byte reads as utf8.RuneError, U+FFFD
		switch {
		case unicode.IsControl(r):
			r = ' '
		case bidi(r):
			continue
		}
		if b.Len()+utf8.RuneLen(r) > max {
			break
		}
		b.WriteRune(r)
	}
	return strings.TrimSpace(b.String())
}

// plain reports whether s is already clean: printable ASCII of at most max bytes, without
// spaces at its ends (most names, which Clean returns as they are, without allocating).
func plain(s string, max int) bool {
	if len(s) > max || s != "" && (s[0] == ' ' || s[len(s)-1] == ' ') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// bidi reports whether r is a bidirectional formatting character: the embeddings, overrides
// and isolates U+202A to U+202E and U+2066 to U+2069, and the marks U+200E, U+200F and U+061C
// (the set package label refuses in names people give).
func bidi(r rune) bool {
	return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 || r == 0x200E || r == 0x200F || r == 0x061C
}

// merge makes the table lookups read: for each device and field, as polled, else static.
// The caller holds n.mu.
func (n *Names) merge() {
	m := make(map[netip.Addr]*Device, len(n.static)+len(n.polled))
	for a, s := range n.static {
		m[a] = s
	}
	for a, p := range n.polled {
		s, ok := n.static[a]
		if !ok {
			m[a] = p
			continue
		}
		d := &Device{Address: a, Name: cmp.Or(p.Name, s.Name), Interfaces: make(map[uint32]Interface, len(p.Interfaces))}
		for i, si := range s.Interfaces {
			d.Interfaces[i] = si
		}
		for i, pi := range p.Interfaces {
			si := s.Interfaces[i]
			d.Interfaces[i] = Interface{Index: i, Name: cmp.Or(pi.Name, si.Name), Alias: cmp.Or(pi.Alias, si.Alias), Speed: cmp.Or(pi.Speed, si.Speed)}
		}
		m[a] = d
	}
	n.merged.Store(&m)
}

// device returns the names of the exporter at a, or nil.
func (n *Names) device(a netip.Addr) *Device {
	if n == nil || !a.IsValid() {
		return nil
	}
	m := n.merged.Load()
	if m == nil {
		return nil
	}
	return (*m)[a.Unmap()]
}

// Exporter returns the name of the exporter at a, or "".
func (n *Names) Exporter(a netip.Addr) string {
	if d := n.device(a); d != nil {
		return d.Name
	}
	return ""
}

// Interface returns what names the interface index of the exporter at a: its Index always,
// its name, alias and speed as polled, else as set statically.
func (n *Names) Interface(a netip.Addr, index uint32) Interface {
	return n.device(a).iface(index)
}

// iface returns the names of interface index of d (nil: none).
func (d *Device) iface(index uint32) Interface {
	if d == nil || index == 0 {
		return Interface{Index: index}
	}
	i := d.Interfaces[index]
	i.Index = index
	return i
}
