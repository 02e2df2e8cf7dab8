package proxyproto

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
)

// MaxHeaderBytes bounds a version 2 header, its TLVs included: a longer one is refused. A
// version 1 header is at most 107 bytes, as the specification says.
const MaxHeaderBytes = 1024

const maxV1 = 107

var (
	sigV2 = []byte("\r\n\r\n\x00\r\nQUIT\n")
	sigV1 = []byte("PROXY ")
)

// errShort reports that more bytes are needed to read the header.
var errShort = errors.New("proxyproto: header incomplete")

// header is what a PROXY header says: the client's address, or none (the connection's own).
type header struct {
	src netip.AddrPort // invalid when the header names no client
}

// parse reads the PROXY header at the start of b and returns it with its length. It returns
// errShort when b ends before the header does, and another error when b does not begin with a
// well-formed header of version 1 or 2.
func parse(b []byte) (header, int, error) {
	switch {
	case hasPrefix(b, sigV2):
		if len(b) < len(sigV2) {
			return header{}, 0, errShort
		}
		return parseV2(b)
	case hasPrefix(b, sigV1):
		if len(b) < len(sigV1) {
			return header{}, 0, errShort
		}
		return parseV1(b)
	}
	return header{}, 0, errors.New("proxyproto: no PROXY header")
}

// hasPrefix reports whether b and sig agree on their common length: b may be the start of sig.
func hasPrefix(b, sig []byte) bool {
	n := min(len(b), len(sig))
	return n > 0 && bytes.Equal(b[:n], sig[:n])
}

// parseV2 reads a binary header (b begins with its signature).
func parseV2(b []byte) (header, int, error) {
	if len(b) < 16 {
		return header{}, 0, errShort
	}
	verCmd, fam := b[12], b[13]
	size := 16 + int(binary.BigEndian.Uint16(b[14:16]))
	switch {
	case verCmd>>4 != 2:
		return header{}, 0, fmt.Errorf("proxyproto: version %d in a binary header", verCmd>>4)
	case verCmd&0xf > 1:
		return header{}, 0, fmt.Errorf("proxyproto: unknown command %d", verCmd&0xf)
	case size > MaxHeaderBytes:
		return header{}, 0, fmt.Errorf("proxyproto: a header of %d bytes, over the limit of %d", size, MaxHeaderBytes)
	case len(b) < size:
		return header{}, 0, errShort
	}
	if verCmd&0xf == 0 { // LOCAL: the balancer's own connection (a health check)
		return header{}, size, nil
	}
	var alen int
	switch fam >> 4 {
	case 1:
		alen = 12
	case 2:
		alen = 36
	default: // AF_UNSPEC, AF_UNIX: no IP address to take
		return header{}, size, nil
	}
	if fam&0xf != 1 {
		return header{}, 0, fmt.Errorf("proxyproto: transport %d, not a stream (TCP)", fam&0xf)
	}
	if size-16 < alen {
		return header{}, 0, fmt.Errorf("proxyproto: %d bytes of addresses, family %d needs %d", size-16, fam>>4, alen)
	}
	a := b[16 : 16+alen]
	ip, _ := netip.AddrFromSlice(a[:alen/2-2])
	port := binary.BigEndian.Uint16(a[alen-4:])
	return header{src: netip.AddrPortFrom(ip.Unmap(), port)}, size, nil
}

// parseV1 reads a text header (b begins with "PROXY ").
func parseV1(b []byte) (header, int, error) {
	end := bytes.Index(b[:min(len(b), maxV1)], []byte("\r\n"))
	if end < 0 {
		if len(b) < maxV1 {
			return header{}, 0, errShort
		}
		return header{}, 0, fmt.Errorf("proxyproto: no end of line within %d bytes", maxV1)
	}
	f := bytes.Split(b[:end], []byte(" "))
	size := end + 2
	if len(f) >= 2 && string(f[1]) == "UNKNOWN" {
		return header{}, size, nil
	}
	if len(f) != 6 || string(f[1]) != "TCP4" && string(f[1]) != "TCP6" {
		return header{}, 0, errors.New("proxyproto: a version 1 header is PROXY TCP4|TCP6|UNKNOWN src dst sport dport")
	}
	src, err1 := netip.ParseAddr(string(f[2]))
	dst, err2 := netip.ParseAddr(string(f[3]))
	sport, err3 := parsePort(f[4])
	_, err4 := parsePort(f[5])
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return header{}, 0, fmt.Errorf("proxyproto: %w", err)
	}
	v4 := string(f[1]) == "TCP4"
	for _, a := range []netip.Addr{src, dst} {
		if a.Zone() != "" || a.Is4() != v4 {
			return header{}, 0, fmt.Errorf("proxyproto: %s is not an address of %s", a, f[1])
		}
	}
	return header{src: netip.AddrPortFrom(src.Unmap(), sport)}, size, nil
}

// parsePort reads a decimal port, 0 to 65535, without leading zeros.
func parsePort(b []byte) (uint16, error) {
	if len(b) == 0 || len(b) > 5 || len(b) > 1 && b[0] == '0' {
		return 0, fmt.Errorf("port %q", b)
	}
	n, err := strconv.ParseUint(string(b), 10, 16)
	if err != nil {
		return 0, fmt.Errorf("port %q", b)
	}
	return uint16(n), nil
}
