package proxyproto_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/transport/proxyproto"
)

var sig = []byte("\r\n\r\n\x00\r\nQUIT\n")

// proxyV2 is the header haproxy's send-proxy-v2 sends for a TCP client src:sport over IPv4.
func proxyV2(src string, sport uint16) []byte {
	b := append(append([]byte{}, sig...), 0x21, 0x11, 0, 12)
	a := netip.MustParseAddr(src).As4()
	b = append(append(b, a[:]...), 127, 0, 0, 1)
	return binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint16(b, sport), 8443)
}

// serve accepts one connection on a Listener trusting trusted, and sends back what the
// server saw: RemoteAddr, what it read, and Read's error.
type seen struct {
	remote string
	data   []byte
	err    error
}

func serve(t *testing.T, trusted string) (addr string, got <-chan seen) {
	t.Helper()
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := &proxyproto.Listener{Listener: inner, Trusted: []netip.Prefix{netip.MustParsePrefix(trusted)},
		HeaderTimeout: 200 * time.Millisecond}
	t.Cleanup(func() { ln.Close() })
	ch := make(chan seen, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			ch <- seen{err: err}
			return
		}
		defer c.Close()
		s := seen{remote: c.RemoteAddr().String()}
		s.data, s.err = io.ReadAll(c)
		ch <- s
	}()
	return inner.Addr().String(), ch
}

// send connects, writes each part, and closes its side.
func send(addr string, parts ...[]byte) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return // the test fails on what the server saw
	}
	defer c.Close()
	for _, p := range parts {
		if _, err := c.Write(p); err != nil {
			return // the server may have refused already
		}
		time.Sleep(time.Millisecond) // in separate segments, as a slow network would
	}
	_ = c.(*net.TCPConn).CloseWrite()
	_, _ = io.Copy(io.Discard, c)
}

func TestListener(t *testing.T) {
	t.Parallel()
	hdr := proxyV2("203.0.113.7", 4242)
	tests := []struct {
		name    string
		trusted string
		parts   [][]byte
		remote  string // "": the connection's own
		data    string
		refused bool
	}{
		{"v2 from a balancer", "127.0.0.1/32", [][]byte{append(hdr, "hello"...)}, "203.0.113.7:4242", "hello", false},
		{"v2 in pieces", "127.0.0.1/32", [][]byte{hdr[:3], hdr[3:14], hdr[14:], []byte("hello")}, "203.0.113.7:4242", "hello", false},
		{"v1 from a balancer", "127.0.0.0/8", [][]byte{[]byte("PROXY TCP4 198.51.100.2 127.0.0.1 5555 8443\r\nhi")}, "198.51.100.2:5555", "hi", false},
		{"v2 LOCAL", "127.0.0.1/32", [][]byte{append(append(append([]byte{}, sig...), 0x20, 0, 0, 0), "ok"...)}, "", "ok", false},
		{"balancer without a header", "127.0.0.1/32", [][]byte{[]byte("GET / HTTP/1.1\r\n\r\n")}, "", "", true},
		{"balancer with a bad header", "127.0.0.1/32", [][]byte{[]byte("PROXY TCP4 nonsense\r\n")}, "", "", true},
		{"balancer silent", "127.0.0.1/32", nil, "", "", true},
		{"stranger with a v2 header", "10.0.0.0/8", [][]byte{append(hdr, "hello"...)}, "", "", true},
		{"stranger with a v1 header", "10.0.0.0/8", [][]byte{[]byte("PROXY TCP4 198.51.100.2 127.0.0.1 5555 8443\r\n")}, "", "", true},
		{"stranger without", "10.0.0.0/8", [][]byte{[]byte("\r\nGET / HTTP/1.1\r\n")}, "", "\r\nGET / HTTP/1.1\r\n", false},
		{"stranger sending a start of a signature only", "10.0.0.0/8", [][]byte{[]byte("PROX")}, "", "PROX", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			addr, got := serve(t, tt.trusted)
			if tt.name == "balancer silent" {
				c, err := net.Dial("tcp", addr) // stays open: the header timeout ends it
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
			} else {
				go send(addr, tt.parts...)
			}
			s := <-got
			if tt.refused {
				if s.err == nil || len(s.data) > 0 {
					t.Fatalf("read %q, %v; want a refusal", s.data, s.err)
				}
				if !strings.HasPrefix(s.remote, "127.0.0.1:") {
					t.Fatalf("remote %s, want the connection's own", s.remote)
				}
				return
			}
			if s.err != nil || string(s.data) != tt.data {
				t.Fatalf("read %q, %v; want %q", s.data, s.err, tt.data)
			}
			if want := tt.remote; want == "" && !strings.HasPrefix(s.remote, "127.0.0.1:") || want != "" && s.remote != want {
				t.Fatalf("remote %s, want %q", s.remote, want)
			}
		})
	}
}

// TestHTTPServer checks the Listener under net/http's TLS server: the handler sees the
// client's address the header names, and a stranger's header is refused.
func TestHTTPServer(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		trusted string
		ok      bool
	}{{"127.0.0.1/32", true}, {"10.0.0.0/8", false}} {
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, r.RemoteAddr)
		}))
		srv.Listener = &proxyproto.Listener{Listener: srv.Listener, Trusted: []netip.Prefix{netip.MustParsePrefix(tt.trusted)}}
		srv.StartTLS()
		defer srv.Close()
		hc := &http.Client{Transport: &http.Transport{
			TLSClientConfig: &tls.Config{InsecureSkipVerify: true},
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
				if err == nil {
					_, err = c.Write(proxyV2("203.0.113.7", 4242))
				}
				return c, err
			},
		}}
		res, err := hc.Get(srv.URL)
		if !tt.ok {
			if err == nil {
				res.Body.Close()
				t.Fatalf("trusting %s, a header from 127.0.0.1 was served", tt.trusted)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if !bytes.Equal(b, []byte("203.0.113.7:4242")) {
			t.Fatalf("the handler saw %q", b)
		}
	}
}
