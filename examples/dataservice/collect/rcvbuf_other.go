//go:build !linux

package collect

import "net"

// setReadBuffer asks for a receive buffer of n bytes on conn and returns n: elsewhere than
// Linux the size granted is not read back.
func setReadBuffer(conn *net.UDPConn, n int) int {
	_ = conn.SetReadBuffer(n)
	return n
}
