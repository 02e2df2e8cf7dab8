package records

import (
	"encoding/binary"
	"net/netip"
)

// Halves returns the two 64-bit halves of the 16-byte form of a, as the records table stores
// addresses (client_ip_hi, client_ip_lo, ...). An IPv4 address is taken in its IPv4-mapped form
// ::ffff:a.b.c.d, so IPv4 addresses sort together and CIDR filters become ranges. Zones are
// dropped; the zero Addr gives 0, 0.
func Halves(a netip.Addr) (hi, lo uint64) {
	if !a.IsValid() {
		return 0, 0
	}
	b := a.As16()
	return binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])
}

// AddrFromHalves is the inverse of Halves: it returns the address whose 16-byte form has the
// halves hi and lo, as IPv4 when that form is IPv4-mapped.
func AddrFromHalves(hi, lo uint64) netip.Addr {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], hi)
	binary.BigEndian.PutUint64(b[8:], lo)
	return netip.AddrFrom16(b).Unmap()
}
