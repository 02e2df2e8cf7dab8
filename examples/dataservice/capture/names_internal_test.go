package capture

import (
	"crypto/tls"
	"net"
	"net/netip"
	"testing"
)

// TestSNI reads the server name from a ClientHello that Go's TLS client really sends.
func TestSNI(t *testing.T) {
	t.Parallel()
	c, s := net.Pipe()
	defer s.Close()
	go func() {
		tls.Client(c, &tls.Config{ServerName: "Secure.Example"}).Handshake()
		c.Close()
	}()
	buf := make([]byte, 4096)
	n, err := s.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	if got := serverName(buf[:n]); got != "secure.example" {
		t.Fatalf("SNI %q, want secure.example", got)
	}
	for i := range n { // cut anywhere: no name, no crash
		if got := serverName(buf[:i]); got != "" && got != "secure.example" {
			t.Fatalf("cut at %d: %q", i, got)
		}
	}
}

func TestHTTPHost(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"GET / HTTP/1.1\r\nhost: a.example\r\n\r\n":             "a.example",
		"POST /x HTTP/1.1\r\nX: y\r\nHost:  [::1]:8443\r\n\r\n": "::1",
		"GET / HTTP/1.1\r\n\r\nHost: body.example\r\n":          "",
		"GET / HTTP/1.1\r\nHost: cut.exa":                       "",
		"SSH-2.0-OpenSSH\r\nHost: no.example\r\n":               "",
	} {
		if got := serverName([]byte(in)); got != want {
			t.Errorf("serverName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNameCacheBounded(t *testing.T) {
	t.Parallel()
	n := newNameCache(3)
	for i := range 10 {
		n.put(netipFrom4(byte(i)), "x")
	}
	if n.len() != 3 {
		t.Fatalf("%d names in a cache of 3", n.len())
	}
}

func netipFrom4(b byte) netip.Addr { return netip.AddrFrom4([4]byte{10, 0, 0, b}) }
