package collect

import (
	"net"

	"golang.org/x/sys/unix"
)

// setReadBuffer asks for a receive buffer of n bytes on conn and returns the bytes granted.
// Linux caps SO_RCVBUF at net.core.rmem_max (212,992 bytes by default), which a burst of
// 100,000 flows a second overflows in tens of milliseconds; SO_RCVBUFFORCE passes the cap when
// the process may (CAP_NET_ADMIN, as root), else the capped size stays.
func setReadBuffer(conn *net.UDPConn, n int) int {
	raw, err := conn.SyscallConn()
	if err != nil {
		return 0
	}
	got := 0
	_ = raw.Control(func(fd uintptr) {
		if unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, n) != nil {
			_ = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUF, n)
		}
		// The kernel reports twice what it keeps for data (the rest is its bookkeeping).
		if v, err := unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUF); err == nil {
			got = v / 2
		}
	})
	return got
}
