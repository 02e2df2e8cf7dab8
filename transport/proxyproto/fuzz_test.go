package proxyproto

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/netip"
	"testing"
	"time"
)

func fuzzSeeds(f *testing.F) {
	f.Add([]byte("PROXY TCP4 203.0.113.7 192.0.2.1 4242 443\r\nGET /"))
	f.Add([]byte("PROXY TCP6 2001:db8::7 2001:db8::1 4242 443\r\n"))
	f.Add([]byte("PROXY UNKNOWN\r\n"))
	f.Add(v2(1, 0x11, inet4("203.0.113.7", 4242)))
	f.Add(v2(1, 0x21, inet6("2001:db8::7", 4242)))
	f.Add(v2(0, 0x00, nil))
	f.Add(v2(1, 0x31, make([]byte, 216)))
	f.Add([]byte{0x16, 3, 1, 0, 0xc8, 1})
}

// FuzzParse checks, for any input, that parse neither panics nor reads past its input or
// MaxHeaderBytes; that a header parsed once parses the same whatever follows it, and each cut
// of it asks for more; and that a v1 header's client address is the text it gave.
func FuzzParse(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		h, size, err := parse(b)
		if err != nil {
			if size != 0 || h.src.IsValid() {
				t.Fatalf("an error with a header: %v %d", h, size)
			}
			return
		}
		if size <= 0 || size > len(b) || size > MaxHeaderBytes {
			t.Fatalf("size %d of %d bytes", size, len(b))
		}
		h2, size2, err := parse(append(b[:size:size], "trailing bytes"...))
		if err != nil || h2 != h || size2 != size {
			t.Fatalf("with other bytes after it: %v %d %v, want %v %d", h2, size2, err, h, size)
		}
		if _, _, err := parse(b[:size-1]); size > 1 && !errors.Is(err, errShort) {
			t.Fatalf("cut by one byte: %v", err)
		}
		if bytes.HasPrefix(b, sigV1) && h.src.IsValid() {
			f := bytes.Fields(b[:size])
			if a, _ := netip.ParseAddr(string(f[2])); a.Unmap() != h.src.Addr() {
				t.Fatalf("v1 source %s, header says %s", h.src, f[2])
			}
		}
	})
}

// FuzzConn feeds any bytes to a trusted Conn: it either refuses them, or yields exactly the
// bytes after the header; and an untrusted Conn yields them all unless they begin with a
// PROXY signature.
func FuzzConn(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, trusted := range []bool{true, false} {
			client, server := net.Pipe()
			go func() {
				_, _ = client.Write(b)
				client.Close()
			}()
			l := &Listener{HeaderTimeout: time.Second}
			c := &Conn{Conn: server, l: l, trusted: trusted}
			got, err := io.ReadAll(c)
			server.Close()
			h, size, perr := parse(b)
			switch {
			case trusted && perr == nil:
				if err != nil || !bytes.Equal(got, b[size:]) {
					t.Fatalf("trusted, header %v of %d bytes: read %q, %v", h, size, got, err)
				}
			case trusted:
				if err == nil || len(got) > 0 {
					t.Fatalf("trusted, no header (%v): read %q, %v", perr, got, err)
				}
			case len(b) >= 6 && bytes.HasPrefix(b, sigV1) || len(b) >= 12 && bytes.HasPrefix(b, sigV2):
				if err == nil || len(got) > 0 {
					t.Fatalf("untrusted header: read %q, %v", got, err)
				}
			default:
				if err != nil || !bytes.Equal(got, b) {
					t.Fatalf("untrusted, no header: read %q, %v; want the input", got, err)
				}
			}
		}
	})
}
