package capture

import (
	"bytes"
	"encoding/binary"
	"net/netip"
)

// maxName is the longest server name kept (a DNS name's limit).
const maxName = 253

// nameCache maps server addresses to the names DNS answers gave them, bounded: when full, an
// arbitrary entry makes room.
type nameCache struct {
	m   map[netip.Addr]string
	max int
}

func newNameCache(n int) nameCache { return nameCache{m: make(map[netip.Addr]string), max: n} }

func (n *nameCache) len() int                   { return len(n.m) }
func (n *nameCache) lookup(a netip.Addr) string { return n.m[a] }
func (n *nameCache) put(a netip.Addr, name string) {
	if _, ok := n.m[a]; !ok && len(n.m) >= n.max {
		for k := range n.m {
			delete(n.m, k)
			break
		}
	}
	n.m[a] = name
}

// learnDNS reads a DNS response and remembers, for each A and AAAA answer, the name that was
// asked (the question's, not a CNAME's target: what the client wanted).
func (n *nameCache) learnDNS(b []byte) {
	if len(b) < 12 || b[2]&0x80 == 0 || b[3]&0x0f != 0 { // a response without error
		return
	}
	qd, an := binary.BigEndian.Uint16(b[4:]), binary.BigEndian.Uint16(b[6:])
	if qd != 1 || an == 0 {
		return
	}
	var qname [maxName]byte
	name, off := readName(b, 12, qname[:0])
	if off < 0 || off+4 > len(b) || len(name) == 0 {
		return
	}
	off += 4
	var s string
	for range min(an, 64) {
		_, o := readName(b, off, nil)
		if o < 0 || o+10 > len(b) {
			return
		}
		typ := binary.BigEndian.Uint16(b[o:])
		rdlen := int(binary.BigEndian.Uint16(b[o+8:]))
		o += 10
		if o+rdlen > len(b) {
			return
		}
		var a netip.Addr
		switch {
		case typ == 1 && rdlen == 4:
			a = netip.AddrFrom4([4]byte(b[o:]))
		case typ == 28 && rdlen == 16:
			a = netip.AddrFrom16([16]byte(b[o:])).Unmap()
		}
		if a.IsValid() {
			if s == "" {
				if s = cleanName(name); s == "" {
					return
				}
			}
			n.put(a, s)
		}
		off = o + rdlen
	}
}

// readName reads the DNS name at off, appending its dotted form to dst when dst is not nil,
// and returns it with the offset after the name (-1 when malformed).
func readName(b []byte, off int, dst []byte) ([]byte, int) {
	end := walkName(b, off, func(l []byte) bool {
		if dst == nil {
			return true
		}
		if len(dst)+len(l)+1 > maxName {
			return false
		}
		if len(dst) > 0 {
			dst = append(dst, '.')
		}
		dst = append(dst, l...)
		return true
	})
	return dst, end
}

// walkName walks the DNS name at off, compression pointers followed (16 at most), calling
// label with each label in order until it returns false, and returns the offset after the
// name: -1 when malformed (a label past the end, a bad label type, too many pointers) or
// when label returned false.
func walkName(b []byte, off int, label func([]byte) bool) int {
	end := -1
	for hops := 0; ; {
		if off >= len(b) {
			return -1
		}
		l := int(b[off])
		switch {
		case l == 0:
			if end < 0 {
				end = off + 1
			}
			return end
		case l&0xc0 == 0xc0:
			if off+1 >= len(b) || hops == 16 {
				return -1
			}
			if end < 0 {
				end = off + 2
			}
			hops++
			off = int(binary.BigEndian.Uint16(b[off:]) & 0x3fff)
		case l&0xc0 != 0:
			return -1
		default:
			if off+1+l > len(b) || !label(b[off+1:off+1+l]) {
				return -1
			}
			off += 1 + l
		}
	}
}

// serverName finds the name a client's first payload asks for: the SNI of a TLS
// ClientHello, or the Host header of an HTTP/1 request, when it is in that one segment.
func serverName(b []byte) string {
	if len(b) > 5 && b[0] == 0x16 && b[1] == 3 {
		return sni(b)
	}
	return httpHost(b)
}

// sni reads the server_name extension of a TLS ClientHello record.
func sni(b []byte) string {
	b = b[5:]                    // record header
	if len(b) < 4 || b[0] != 1 { // ClientHello
		return ""
	}
	return helloSNI(b[4:])
}

// helloSNI reads the server_name extension of a ClientHello's body.
func helloSNI(b []byte) string {
	if len(b) < 35 {
		return ""
	}
	b = b[34:] // version, random
	skip := func(lenBytes int) bool {
		if len(b) < lenBytes {
			return false
		}
		n := int(b[0])
		if lenBytes == 2 {
			n = int(binary.BigEndian.Uint16(b))
		}
		if len(b) < lenBytes+n {
			return false
		}
		b = b[lenBytes+n:]
		return true
	}
	if !skip(1) || !skip(2) || !skip(1) { // session id, cipher suites, compression
		return ""
	}
	if len(b) < 2 {
		return ""
	}
	b = b[2:min(len(b), 2+int(binary.BigEndian.Uint16(b)))]
	for len(b) >= 4 {
		typ, n := binary.BigEndian.Uint16(b), int(binary.BigEndian.Uint16(b[2:]))
		b = b[4:]
		if n > len(b) {
			return ""
		}
		if typ == 0 { // server_name: list length, then type 0 (host_name), length, name
			e := b[:n]
			if len(e) < 5 || e[2] != 0 {
				return ""
			}
			l := int(binary.BigEndian.Uint16(e[3:]))
			if 5+l > len(e) {
				return ""
			}
			return cleanName(e[5 : 5+l])
		}
		b = b[n:]
	}
	return ""
}

var httpMethods = [][]byte{[]byte("GET "), []byte("POST "), []byte("HEAD "), []byte("PUT "),
	[]byte("DELETE "), []byte("OPTIONS "), []byte("PATCH "), []byte("CONNECT ")}

// httpHost reads the Host header of an HTTP/1 request.
func httpHost(b []byte) string {
	ok := false
	for _, m := range httpMethods {
		if bytes.HasPrefix(b, m) {
			ok = true
			break
		}
	}
	if !ok {
		return ""
	}
	for {
		i := bytes.Index(b, []byte("\r\n"))
		if i < 0 {
			return ""
		}
		b = b[i+2:]
		if len(b) >= 5 && bytes.EqualFold(b[:5], []byte("host:")) {
			v := b[5:]
			if j := bytes.IndexByte(v, '\r'); j >= 0 {
				v = v[:j]
			} else {
				return "" // cut: the name may be incomplete
			}
			v = bytes.TrimSpace(v)
			if k := bytes.LastIndexByte(v, ':'); k >= 0 && bytes.IndexByte(v, ']') < k {
				v = v[:k] // the port
			}
			return cleanName(bytes.Trim(v, "[]"))
		}
		if len(b) >= 2 && b[0] == '\r' && b[1] == '\n' {
			return "" // end of the headers
		}
	}
}

// cleanName returns a lower-case copy of a name, or "" when it is too long or holds bytes no
// host name has.
func cleanName(b []byte) string {
	if len(b) == 0 || len(b) > maxName {
		return ""
	}
	for _, c := range b {
		if c <= ' ' || c >= 0x7f {
			return ""
		}
	}
	return string(bytes.ToLower(b))
}
