package netctx

import (
	"net/netip"
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
	static atomic.Pointer[map[netip.Addr]*Device]
	polled atomic.Pointer[map[netip.Addr]*Device]
}

// SetStatic makes ds the static names, replacing the previous ones.
func (n *Names) SetStatic(ds []Device) { n.static.Store(index(ds)) }

// SetPolled records what a poll found of one device, keeping the others'.
func (n *Names) SetPolled(d Device) {
	for {
		old := n.polled.Load()
		m := map[netip.Addr]*Device{}
		if old != nil {
			for k, v := range *old {
				m[k] = v
			}
		}
		m[d.Address] = &d
		if n.polled.CompareAndSwap(old, &m) {
			return
		}
	}
}

func index(ds []Device) *map[netip.Addr]*Device {
	m := make(map[netip.Addr]*Device, len(ds))
	for i := range ds {
		m[ds[i].Address.Unmap()] = &ds[i]
	}
	return &m
}

func lookup(p *atomic.Pointer[map[netip.Addr]*Device], a netip.Addr) *Device {
	m := p.Load()
	if m == nil {
		return nil
	}
	return (*m)[a]
}

// Exporter returns the name of the exporter at a, or "".
func (n *Names) Exporter(a netip.Addr) string {
	if n == nil || !a.IsValid() {
		return ""
	}
	a = a.Unmap()
	if d := lookup(&n.polled, a); d != nil && d.Name != "" {
		return d.Name
	}
	if d := lookup(&n.static, a); d != nil {
		return d.Name
	}
	return ""
}

// Interface returns what names the interface index of the exporter at a: its Index always,
// its name, alias and speed as polled, else as set statically.
func (n *Names) Interface(a netip.Addr, index uint32) Interface {
	out := Interface{Index: index}
	if n == nil || index == 0 || !a.IsValid() {
		return out
	}
	a = a.Unmap()
	for _, p := range []*atomic.Pointer[map[netip.Addr]*Device]{&n.polled, &n.static} {
		if d := lookup(p, a); d != nil {
			i := d.Interfaces[index]
			if out.Name == "" {
				out.Name = i.Name
			}
			if out.Alias == "" {
				out.Alias = i.Alias
			}
			if out.Speed == 0 {
				out.Speed = i.Speed
			}
		}
	}
	return out
}
