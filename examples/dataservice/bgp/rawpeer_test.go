package bgp_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/netip"
	"testing"
	"time"
)

// rawPeer is a BGP peer written in the test: it opens a session from an address of
// 127.0.0.0/8 and writes the messages a test makes, well formed or not.
type rawPeer struct {
	conn net.Conn
	t    testing.TB
}

// dialRaw connects from local to the speaker at port and opens a session of AS as (IPv4 and
// IPv6 unicast, 4-octet AS numbers, hold time 0: no KEEPALIVEs); the speaker's OPEN and
// KEEPALIVE are read.
func dialRaw(t testing.TB, local string, port int, as uint32) *rawPeer {
	t.Helper()
	p := connect(t, local, port)
	p.open(local, as)
	return p
}

// open opens the session of dialRaw on p.
func (p *rawPeer) open(local string, as uint32) {
	p.t.Helper()
	p.write(1, openBody(local, as, 0))
	for _, want := range []byte{1, 4} {
		if typ, b := p.read(); typ != want {
			p.t.Fatalf("message %d from the speaker (%x), want %d", typ, b, want)
		}
	}
	p.write(4, nil)
}

// connect opens a TCP connection from local to the speaker at port.
func connect(t testing.TB, local string, port int) *rawPeer {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}, Timeout: 5 * time.Second}
	conn, err := d.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &rawPeer{conn: conn, t: t}
}

// openBody is the body of an OPEN of AS as from local (its BGP identifier), hold time hold:
// IPv4 and IPv6 unicast, 4-octet AS numbers.
func openBody(local string, as uint32, hold uint16) []byte {
	caps := []byte{1, 4, 0, 1, 0, 1, 1, 4, 0, 2, 0, 1, 65, 4}
	caps = binary.BigEndian.AppendUint32(caps, as)
	id := netip.MustParseAddr(local).As4()
	body := binary.BigEndian.AppendUint16([]byte{4, 0x5b, 0xa0}, hold) // version, AS_TRANS
	return append(append(append(body, id[:]...), byte(len(caps)+2), 2, byte(len(caps))), caps...)
}

// write sends a message of type typ (1 OPEN, 2 UPDATE, 4 KEEPALIVE).
func (p *rawPeer) write(typ byte, body []byte) {
	p.t.Helper()
	if _, err := p.conn.Write(message(typ, body)); err != nil {
		p.t.Fatal(err)
	}
}

func message(typ byte, body []byte) []byte {
	m := bytes.Repeat([]byte{0xff}, 16)
	m = binary.BigEndian.AppendUint16(m, uint16(19+len(body)))
	return append(append(m, typ), body...)
}

// read returns the next message (type 0 at the end of the connection).
func (p *rawPeer) read() (byte, []byte) {
	p.t.Helper()
	_ = p.conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	var h [19]byte
	if _, err := io.ReadFull(p.conn, h[:]); err != nil {
		return 0, nil
	}
	b := make([]byte, int(binary.BigEndian.Uint16(h[16:]))-19)
	if _, err := io.ReadFull(p.conn, b); err != nil {
		return 0, nil
	}
	return h[18], b
}

// notified reads until the speaker sends a NOTIFICATION and closes, and returns its code.
func (p *rawPeer) notified() byte {
	p.t.Helper()
	for {
		typ, b := p.read()
		switch {
		case typ == 0:
			p.t.Fatal("the connection ended without a NOTIFICATION")
		case typ == 3:
			return b[0]
		}
	}
}

// update is an IPv4 UPDATE announcing prefixes with the AS path and communities given.
func update(path []uint32, comms []uint32, prefixes []netip.Prefix) []byte {
	attrs := []byte{0x40, 1, 1, 0}
	seg := []byte{2, byte(len(path))}
	for _, as := range path {
		seg = binary.BigEndian.AppendUint32(seg, as)
	}
	attrs = append(append(attrs, 0x40, 2, byte(len(seg))), seg...)
	attrs = append(attrs, 0x40, 3, 4, 127, 0, 0, 4)
	if len(comms) > 0 {
		attrs = append(attrs, 0xc0, 8, byte(4*len(comms)))
		for _, c := range comms {
			attrs = binary.BigEndian.AppendUint32(attrs, c)
		}
	}
	body := []byte{0, 0}
	body = binary.BigEndian.AppendUint16(body, uint16(len(attrs)))
	body = append(body, attrs...)
	for _, p := range prefixes {
		a := p.Addr().As4()
		body = append(append(body, byte(p.Bits())), a[:(p.Bits()+7)/8]...)
	}
	return body
}

// until reads the speaker's messages until an UPDATE whose body ok accepts.
func (p *rawPeer) until(t *testing.T, what string, ok func(body []byte) bool) {
	t.Helper()
	for {
		typ, b := p.read()
		switch {
		case typ == 0:
			t.Fatalf("the connection ended before %s", what)
		case typ == 3:
			t.Fatalf("a NOTIFICATION (%x) before %s", b, what)
		case typ == 2 && ok(b):
			return
		}
	}
}
