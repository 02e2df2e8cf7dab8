package netctx

import (
	"cmp"
	"net/netip"
	"sync"
	"sync/atomic"
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

// SetStatic makes ds the static names, replacing the previous ones.
func (n *Names) SetStatic(ds []Device) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.static = make(map[netip.Addr]*Device, len(ds))
	for i := range ds {
		n.static[ds[i].Address.Unmap()] = &ds[i]
	}
	n.merge()
}

// SetPolled records what a poll found of one device, keeping the others'.
func (n *Names) SetPolled(d Device) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.polled == nil {
		n.polled = map[netip.Addr]*Device{}
	}
	d.Address = d.Address.Unmap()
	n.polled[d.Address] = &d
	n.merge()
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
