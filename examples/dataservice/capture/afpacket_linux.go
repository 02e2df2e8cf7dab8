package capture

import (
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Ring sizes of a live capture: RingBlocks blocks of RingBlockSize bytes (32 MiB in all),
// each handed to the probe when full or RingBlockTimeout after its first packet.
const (
	RingBlockSize    = 1 << 20
	RingBlocks       = 32
	RingBlockTimeout = 100 * time.Millisecond
	ringFrameSize    = 2048 // TPACKET_V3 packs packets; this only bounds the kernel's frame_nr
)

// OpenInterface captures live on a Linux interface with an AF_PACKET socket and a TPACKET_V3
// memory-mapped ring (no copy from the kernel, no cgo), in promiscuous mode. A non-nil
// filter is attached to the socket, so that the kernel drops what it refuses before the
// ring. Stats reports the kernel's counts of packets and of drops when the ring was full.
// Frames are read as Ethernet (LinkEthernet): Ethernet devices, veth, bridges, bonds, VLAN
// devices and loopback; devices without a link-layer header (tun) are not supported yet.
// The kernel hands VLAN-tagged frames over with their tag removed.
func OpenInterface(name string, filter *Filter) (Source, error) {
	ifi, err := net.InterfaceByName(name)
	if err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, int(htons(unix.ETH_P_ALL)))
	if err != nil {
		return nil, fmt.Errorf("capture: AF_PACKET socket (root or CAP_NET_RAW needed): %w", err)
	}
	s := &ring{fd: fd, link: LinkEthernet}
	if err := s.setup(ifi, filter); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("capture: %s: %w", name, err)
	}
	return s, nil
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

// ring is a TPACKET_V3 receive ring.
type ring struct {
	fd     int
	mem    []byte
	link   LinkType
	block  int         // the block being read
	pkt    uint32      // packets left in it
	off    uint32      // offset of the next packet in it
	held   bool        // block is the probe's until released
	closed atomic.Bool // Stats may run in another goroutine
	mu     sync.Mutex  // guards stats
	stats  SourceStats
}

func (s *ring) setup(ifi *net.Interface, filter *Filter) error {
	if filter != nil {
		raw := filter.Raw()
		prog := make([]unix.SockFilter, len(raw))
		for i, r := range raw {
			prog[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
		}
		fp := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
		if err := unix.SetsockoptSockFprog(s.fd, unix.SOL_SOCKET, unix.SO_ATTACH_FILTER, &fp); err != nil {
			return fmt.Errorf("attach filter: %w", err)
		}
	}
	if err := unix.SetsockoptInt(s.fd, unix.SOL_PACKET, unix.PACKET_VERSION, unix.TPACKET_V3); err != nil {
		return fmt.Errorf("TPACKET_V3: %w", err)
	}
	req := unix.TpacketReq3{
		Block_size: RingBlockSize, Block_nr: RingBlocks,
		Frame_size: ringFrameSize, Frame_nr: RingBlockSize / ringFrameSize * RingBlocks,
		Retire_blk_tov: uint32(RingBlockTimeout / time.Millisecond),
	}
	if err := unix.SetsockoptTpacketReq3(s.fd, unix.SOL_PACKET, unix.PACKET_RX_RING, &req); err != nil {
		return fmt.Errorf("PACKET_RX_RING: %w", err)
	}
	mem, err := unix.Mmap(s.fd, 0, RingBlockSize*RingBlocks, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return fmt.Errorf("mmap: %w", err)
	}
	s.mem = mem
	sa := &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_ALL), Ifindex: ifi.Index}
	if err := unix.Bind(s.fd, sa); err != nil {
		return fmt.Errorf("bind: %w", err)
	}
	mreq := unix.PacketMreq{Ifindex: int32(ifi.Index), Type: unix.PACKET_MR_PROMISC}
	if err := unix.SetsockoptPacketMreq(s.fd, unix.SOL_PACKET, unix.PACKET_ADD_MEMBERSHIP, &mreq); err != nil {
		return fmt.Errorf("promiscuous mode: %w", err)
	}
	return nil
}

// blockHdr is the block at index i.
func (s *ring) blockHdr(i int) *unix.TpacketHdrV1 {
	// struct tpacket_block_desc: version, offset_to_priv, then the v1 header.
	return (*unix.TpacketHdrV1)(unsafe.Pointer(&s.mem[i*RingBlockSize+8]))
}

// Next implements Source: the next packet, or a tick (no Data) when none came within
// RingBlockTimeout.
func (s *ring) Next(f *Frame) error {
	for {
		if s.closed.Load() {
			return ErrClosed
		}
		if s.held && s.pkt > 0 {
			base := s.block * RingBlockSize
			h := (*unix.Tpacket3Hdr)(unsafe.Pointer(&s.mem[base+int(s.off)]))
			start := base + int(s.off) + int(h.Mac)
			f.Data = s.mem[start : start+int(h.Snaplen)]
			f.Len = int(h.Len)
			f.Time = int64(h.Sec)*1e9 + int64(h.Nsec)
			f.Link = s.link
			s.pkt--
			s.off += h.Next_offset
			return nil
		}
		if s.held { // give the block back to the kernel
			atomic.StoreUint32(&s.blockHdr(s.block).Block_status, unix.TP_STATUS_KERNEL)
			s.held = false
			s.block = (s.block + 1) % RingBlocks
		}
		b := s.blockHdr(s.block)
		if atomic.LoadUint32(&b.Block_status)&unix.TP_STATUS_USER != 0 {
			s.held, s.pkt, s.off = true, b.Num_pkts, b.Offset_to_first_pkt
			continue
		}
		fds := []unix.PollFd{{Fd: int32(s.fd), Events: unix.POLLIN | unix.POLLERR}}
		if _, err := unix.Poll(fds, int(RingBlockTimeout/time.Millisecond)); err != nil && err != unix.EINTR {
			return fmt.Errorf("capture: poll: %w", err)
		}
		if atomic.LoadUint32(&b.Block_status)&unix.TP_STATUS_USER == 0 {
			f.Data, f.Time = nil, time.Now().UnixNano()
			return nil
		}
	}
}

// Stats implements Source, from the kernel's counters (which reset on each read).
func (s *ring) Stats() SourceStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, err := unix.GetsockoptTpacketStatsV3(s.fd, unix.SOL_PACKET, unix.PACKET_STATISTICS); err == nil {
		s.stats.Packets += uint64(st.Packets)
		s.stats.Drops += uint64(st.Drops)
	}
	return s.stats
}

// Close implements Source: it releases the ring and the socket.
func (s *ring) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	err := unix.Munmap(s.mem)
	s.mem = nil
	if e := unix.Close(s.fd); err == nil {
		err = e
	}
	return err
}
