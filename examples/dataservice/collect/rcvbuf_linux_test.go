package collect

import (
	"net"
	"os"
	"testing"
)

// TestReadBufferPastRmemMax: a root collector's socket gets the receive buffer it asks for,
// past net.core.rmem_max (212,992 bytes by default), which SetReadBuffer alone stops at.
func TestReadBufferPastRmemMax(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("SO_RCVBUFFORCE needs CAP_NET_ADMIN: run as root")
	}
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if got := setReadBuffer(conn, ReadBuffer); got < ReadBuffer {
		t.Fatalf("receive buffer %d bytes, want %d", got, ReadBuffer)
	}
}
