package capture_test

import (
	"encoding/binary"

	"github.com/fnapi/fnapi/examples/dataservice/capture"
)

// tcpFrame builds an Ethernet/IPv4/TCP frame with payload bytes of data (checksums left
// zero: the probe does not read them).
func tcpFrame(src, dst [4]byte, sport, dport uint16, flags uint8, seq, ack uint32, payload int) []byte {
	f := make([]byte, 14+20+20+payload)
	copy(f, []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0x08, 0x00})
	ip := f[14:]
	ip[0] = 0x45
	binary.BigEndian.PutUint16(ip[2:], uint16(40+payload))
	ip[8], ip[9] = 64, capture.ProtoTCP
	copy(ip[12:], src[:])
	copy(ip[16:], dst[:])
	tcp := ip[20:]
	binary.BigEndian.PutUint16(tcp, sport)
	binary.BigEndian.PutUint16(tcp[2:], dport)
	binary.BigEndian.PutUint32(tcp[4:], seq)
	binary.BigEndian.PutUint32(tcp[8:], ack)
	tcp[12] = 0x50
	tcp[13] = flags
	binary.BigEndian.PutUint16(tcp[14:], 512)
	return f
}

// pcapFile returns a pcap file (microseconds, little-endian, Ethernet) of frames captured at
// times (Unix nanoseconds).
func pcapFile(frames [][]byte, times []int64) []byte {
	return pcapFileSnap(frames, times, nil)
}

// pcapFileSnap is pcapFile with the frames' lengths on the wire (pcap's original length) in
// wire when not nil: a frame longer than its captured bytes was cut by the snap length.
func pcapFileSnap(frames [][]byte, times []int64, wire []int) []byte {
	b := []byte{0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 1, 0, 0, 0}
	for i, f := range frames {
		orig := len(f)
		if wire != nil {
			orig = wire[i]
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(times[i]/1e9))
		b = binary.LittleEndian.AppendUint32(b, uint32(times[i]%1e9/1e3))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(f)))
		b = binary.LittleEndian.AppendUint32(b, uint32(orig))
		b = append(b, f...)
	}
	return b
}
