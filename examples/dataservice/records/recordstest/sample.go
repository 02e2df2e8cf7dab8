package recordstest

import (
	"fmt"
	"net/netip"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// Sample returns n valid records with times from t0, one a second, mixing IPv4 and IPv6.
func Sample(n int, t0 int64) []records.Record {
	out := make([]records.Record, n)
	for i := range out {
		client := netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)})
		if i%5 == 0 {
			client = netip.MustParseAddr(fmt.Sprintf("fd00::%x", i))
		}
		out[i] = records.Record{
			Time: t0 + int64(i), Protocol: records.TCP, Application: "https",
			Client: records.Endpoint{IP: client, Port: uint16(40000 + i), Bytes: uint64(100 + i), Packets: 2},
			Server: records.Endpoint{IP: netip.MustParseAddr("93.184.216.34"), Port: 443, Bytes: records.MaxCount, Packets: 40},
		}
		if i%3 == 0 {
			out[i].Exporter, out[i].InIf, out[i].OutIf = netip.AddrFrom4([4]byte{192, 0, 2, byte(i)}), uint32(i), 1<<32-1
		}
	}
	return out
}
