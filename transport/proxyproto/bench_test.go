package proxyproto

import (
	"bytes"
	"io"
	"net"
	"testing"
	"time"
)

// memConn is a net.Conn that reads from a buffer, to measure a Conn's own work.
type memConn struct {
	net.Conn
	r *bytes.Reader
}

func (c memConn) Read(p []byte) (int, error) { return c.r.Read(p) }

func (memConn) SetReadDeadline(time.Time) error { return nil }

func (memConn) RemoteAddr() net.Addr { return &net.TCPAddr{IP: net.IPv4(10, 0, 0, 5), Port: 40000} }

// BenchmarkParse measures reading a header haproxy sends (v2, IPv4) and a v1 one.
func BenchmarkParse(b *testing.B) {
	for name, in := range map[string][]byte{
		"v2": v2(1, 0x11, inet4("203.0.113.7", 4242)),
		"v1": []byte("PROXY TCP4 203.0.113.7 192.0.2.1 4242 443\r\n"),
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := parse(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkConn measures what a connection costs: the header read and the first 1 KiB (a TLS
// ClientHello's size) handed on, from a trusted balancer and from a client not trusted.
func BenchmarkConn(b *testing.B) {
	hello := bytes.Repeat([]byte{0x16}, 1024)
	for name, tc := range map[string]struct {
		in      []byte
		trusted bool
	}{
		"trusted v2":  {append(v2(1, 0x11, inet4("203.0.113.7", 4242)), hello...), true},
		"not trusted": {hello, false},
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			l := &Listener{}
			buf := make([]byte, 2048)
			for b.Loop() {
				c := &Conn{Conn: memConn{r: bytes.NewReader(tc.in)}, l: l, trusted: tc.trusted}
				_ = c.RemoteAddr()
				if n, err := io.ReadFull(c, buf[:len(hello)]); err != nil || n != len(hello) {
					b.Fatal(n, err)
				}
			}
		})
	}
}
