package records

import (
	"database/sql/driver"
	"net/netip"
)

// Column is a field of the records table that queries group by, filter on or sum. Each is
// described once, in columns; every store derives its table, its inserts and its SQL from that
// table, so a new field is one row there (and its Record field).
type Column int

// The columns of the records table, in table order.
const (
	ColTime Column = iota
	ColProtocol
	ColApplication
	ColClientIP
	ColClientPort
	ColClientBytes
	ColClientPackets
	ColServerIP
	ColServerPort
	ColServerBytes
	ColServerPackets
	ColExporter
	ColInIf
	ColOutIf
	numColumns
)

// Kind is the type of a column's values.
type Kind int

// Column kinds. An address is stored as the two 64-bit halves of its 16-byte form (columns
// <name>_hi and <name>_lo), IPv4 mapped as ::ffff:a.b.c.d, so CIDR filters are range
// comparisons and keys sort by address.
const (
	KindInt64 Kind = iota
	KindUint8
	KindUint16
	KindUint32
	KindUint64
	KindString
	KindAddr
)

// columnDesc describes one column: its name in SQL, its kind, and how a Record holds it.
type columnDesc struct {
	name string
	kind Kind
	// value returns the column's value in r: int64, uint8, uint16, uint32, uint64, string or
	// netip.Addr, after its kind.
	value func(r *Record) any
}

var columns = [numColumns]columnDesc{
	ColTime:          {"time", KindInt64, func(r *Record) any { return r.Time }},
	ColProtocol:      {"protocol", KindUint8, func(r *Record) any { return r.Protocol }},
	ColApplication:   {"application", KindString, func(r *Record) any { return r.Application }},
	ColClientIP:      {"client_ip", KindAddr, func(r *Record) any { return r.Client.IP }},
	ColClientPort:    {"client_port", KindUint16, func(r *Record) any { return r.Client.Port }},
	ColClientBytes:   {"client_bytes", KindUint64, func(r *Record) any { return r.Client.Bytes }},
	ColClientPackets: {"client_packets", KindUint64, func(r *Record) any { return r.Client.Packets }},
	ColServerIP:      {"server_ip", KindAddr, func(r *Record) any { return r.Server.IP }},
	ColServerPort:    {"server_port", KindUint16, func(r *Record) any { return r.Server.Port }},
	ColServerBytes:   {"server_bytes", KindUint64, func(r *Record) any { return r.Server.Bytes }},
	ColServerPackets: {"server_packets", KindUint64, func(r *Record) any { return r.Server.Packets }},
	// The address of the device that exported the record (halves 0, 0 when it has none: the
	// unspecified address :: is no exporter's) and its interfaces (0: unknown).
	ColExporter: {"exporter", KindAddr, func(r *Record) any { return r.Exporter }},
	ColInIf:     {"in_if", KindUint32, func(r *Record) any { return r.InIf }},
	ColOutIf:    {"out_if", KindUint32, func(r *Record) any { return r.OutIf }},
}

// Name returns the column's name ("client_ip"); an address column is stored as Name()+"_hi"
// and Name()+"_lo".
func (c Column) Name() string { return columns[c].name }

// Kind returns the type of the column's values.
func (c Column) Kind() Kind { return columns[c].kind }

// sqlNames returns the SQL columns that hold c: two for an address.
func (c Column) sqlNames() []string {
	d := columns[c]
	if d.kind == KindAddr {
		return []string{d.name + "_hi", d.name + "_lo"}
	}
	return []string{d.name}
}

// appendRow appends the SQL column values of r, in table order, to dst: an address as its
// two halves.
func appendRow(dst []driver.Value, r *Record) []driver.Value {
	for _, c := range columns {
		v := c.value(r)
		if a, ok := v.(netip.Addr); ok {
			hi, lo := Halves(a)
			dst = append(dst, hi, lo)
			continue
		}
		dst = append(dst, v)
	}
	return dst
}

// sqlColumns returns every SQL column of the table in order, with its kind (an address's
// halves are KindUint64).
func sqlColumns() (names []string, kinds []Kind) {
	for c := range numColumns {
		for _, n := range c.sqlNames() {
			names = append(names, n)
			k := columns[c].kind
			if k == KindAddr {
				k = KindUint64
			}
			kinds = append(kinds, k)
		}
	}
	return names, kinds
}
