package capture_test

import (
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// forwarder copies frames between two interfaces, delaying one direction.
type forwarder struct {
	stop   func()
	mu     sync.Mutex
	byPort map[uint16][2]int64 // frames delayed and ns held, by TCP source port
	// loss is the share of the delayed frames dropped, per mille; dropped counts them.
	loss    atomic.Int64
	dropped atomic.Int64
}

// meanHold is how long the frames from TCP port port were held on average, from their
// arrival at the interface to their departure: more than the delay when the machine was too
// busy to move them in time.
func (f *forwarder) meanHold(port uint16) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c := f.byPort[port]; c[0] > 0 {
		return time.Duration(c[1] / c[0])
	}
	return 0
}

// tcpSourcePort reads the source port of an Ethernet/IPv4/TCP frame.
func tcpSourcePort(f []byte) (uint16, bool) {
	if len(f) < 34 || f[12] != 0x08 || f[13] != 0x00 || f[23] != 6 {
		return 0, false
	}
	at := 14 + int(f[14]&0x0f)*4
	if len(f) < at+2 {
		return 0, false
	}
	return uint16(f[at])<<8 | uint16(f[at+1]), true
}

// startForwarder copies every frame between f0 and f1 in namespace ns, those from f1 (the
// server's) after delay.
func startForwarder(t *testing.T, ns string, delay time.Duration) *forwarder {
	t.Helper()
	var fd0, fd1 int
	inNetns(t, ns, func() (err error) {
		if fd0, err = rawSocket("f0"); err != nil {
			return err
		}
		fd1, err = rawSocket("f1")
		return err
	})
	fw := &forwarder{byPort: map[uint16][2]int64{}}
	var stopped atomic.Bool
	var readers sync.WaitGroup
	writer := make(chan struct{})
	type held struct {
		read  time.Time // when the frame reached the interface (the kernel's timestamp)
		frame []byte
	}
	queue := make(chan held, 4096)
	copyFrames := func(from, to int, delayed bool) {
		defer readers.Done()
		buf := make([]byte, 1<<16)
		oob := make([]byte, 128)
		for !stopped.Load() {
			n, oobn, _, sa, err := unix.Recvmsg(from, buf, oob, 0)
			if err != nil {
				continue // timeout: look at stopped
			}
			if ll, ok := sa.(*unix.SockaddrLinklayer); ok && ll.Pkttype == unix.PACKET_OUTGOING {
				continue
			}
			if delayed && rand.Int64N(1000) < fw.loss.Load() {
				fw.dropped.Add(1)
				continue
			}
			fixChecksum(buf[:n])
			if delayed {
				queue <- held{read: arrival(oob[:oobn]), frame: append([]byte(nil), buf[:n]...)}
				continue
			}
			unix.Write(to, buf[:n])
		}
	}
	readers.Add(2)
	go copyFrames(fd0, fd1, false)
	go copyFrames(fd1, fd0, true)
	go func() {
		defer close(writer)
		for h := range queue {
			due := h.read.Add(delay)
			if d := time.Until(due) - time.Millisecond; d > 0 {
				time.Sleep(d) // not a wait: the link's delay, which the probe measures (rtt)
			}
			for time.Now().Before(due) { // the last millisecond, without the timer's slack
			}
			unix.Write(fd0, h.frame)
			d := int64(time.Since(h.read))
			if port, ok := tcpSourcePort(h.frame); ok {
				fw.mu.Lock()
				c := fw.byPort[port]
				fw.byPort[port] = [2]int64{c[0] + 1, c[1] + d}
				fw.mu.Unlock()
			}
		}
	}()
	fw.stop = func() {
		stopped.Store(true)
		readers.Wait() // within their 100 ms read timeout
		close(queue)
		<-writer
		unix.Close(fd0)
		unix.Close(fd1)
	}
	return fw
}

// rawSocket opens an AF_PACKET socket bound to an interface, reads timing out every 100 ms.
func rawSocket(name string) (int, error) {
	ifi, err := net.InterfaceByName(name)
	if err != nil {
		return -1, err
	}
	proto := int(uint16(unix.ETH_P_ALL)<<8 | uint16(unix.ETH_P_ALL)>>8)
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW, proto)
	if err != nil {
		return -1, err
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1); err != nil {
		return -1, err
	}
	tv := unix.Timeval{Usec: 100000}
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	return fd, unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: uint16(proto), Ifindex: ifi.Index})
}

// fixChecksum computes the TCP or UDP checksum of an IPv4 frame: a sender's veth leaves it
// to the hardware (CHECKSUM_PARTIAL), and a frame written to a packet socket is taken as is.
func fixChecksum(f []byte) {
	if len(f) < 34 || f[12] != 0x08 || f[13] != 0x00 {
		return
	}
	ip := f[14:]
	ihl := int(ip[0]&0x0f) * 4
	total := int(ip[2])<<8 | int(ip[3])
	if total > len(ip) || ihl < 20 || total < ihl {
		return
	}
	l4 := ip[ihl:total]
	var at int
	switch {
	case ip[9] == 6 && len(l4) >= 20:
		at = 16
	case ip[9] == 17 && len(l4) >= 8:
		at = 6
	default:
		return
	}
	l4[at], l4[at+1] = 0, 0
	sum := uint32(0)
	add := func(b []byte) {
		for i := 0; i+1 < len(b); i += 2 {
			sum += uint32(b[i])<<8 | uint32(b[i+1])
		}
		if len(b)%2 == 1 {
			sum += uint32(b[len(b)-1]) << 8
		}
	}
	add(ip[12:20])
	sum += uint32(ip[9]) + uint32(len(l4))
	add(l4)
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	c := ^uint16(sum)
	if c == 0 && ip[9] == 17 {
		c = 0xffff
	}
	l4[at], l4[at+1] = byte(c>>8), byte(c)
}

// arrival reads the kernel's receive timestamp (SO_TIMESTAMPNS) from a message's control
// data; the current time without one.
func arrival(oob []byte) time.Time {
	msgs, _ := unix.ParseSocketControlMessage(oob)
	for _, m := range msgs {
		if m.Header.Level == unix.SOL_SOCKET && m.Header.Type == unix.SCM_TIMESTAMPNS && len(m.Data) >= 16 {
			ts := (*unix.Timespec)(unsafe.Pointer(&m.Data[0]))
			return time.Unix(ts.Sec, ts.Nsec)
		}
	}
	return time.Now()
}
