package capture

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"math/big"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

var (
	feedClient = netip.MustParseAddr("10.11.0.1")
	feedServer = netip.MustParseAddr("10.11.0.2")
)

// tlsFeed feeds a Table the chunks of a TCP connection to port 443 (even: the client's, odd:
// the server's, in that order), each as one segment 1 ms after the one before, after a
// handshake.
type tlsFeed struct {
	tbl        *Table
	now        int64
	seq        [2]uint32
	port       uint16
	maxPayload int
}

func newTLSFeed(tbl *Table, port uint16) *tlsFeed {
	f := &tlsFeed{tbl: tbl, now: 1700000040e9, seq: [2]uint32{1001, 5001}, port: port, maxPayload: 1448}
	f.packet(0, FlagSYN, nil)
	f.packet(1, FlagSYN|FlagACK, nil)
	f.packet(0, FlagACK, nil)
	return f
}

func (f *tlsFeed) packet(side int, flags uint8, data []byte) {
	f.now += 1e6
	p := Packet{Time: f.now, Protocol: ProtoTCP, Src: feedClient, Dst: feedServer, SrcPort: f.port, DstPort: 443,
		Flags: flags, Seq: f.seq[0], Ack: f.seq[1], Window: 65535, Payload: data, PayloadLen: len(data)}
	if side == 1 {
		p.Src, p.Dst, p.SrcPort, p.DstPort, p.Seq, p.Ack = feedServer, feedClient, 443, f.port, f.seq[1], f.seq[0]
	}
	p.Len = 40 + len(data)
	if flags&FlagSYN != 0 {
		p.Seq--
		p.Ack = 0
		if side == 1 {
			p.Ack = f.seq[0]
		}
	}
	f.tbl.Packet(&p)
	f.seq[side] += uint32(len(data))
}

// send sends data from side in segments of at most maxPayload bytes.
func (f *tlsFeed) send(side int, data []byte) {
	for len(data) > 0 {
		n := min(len(data), f.maxPayload)
		f.packet(side, FlagACK|FlagPSH, data[:n])
		data = data[n:]
	}
}

// tlsRecordsOf wraps handshake messages in TLS records of at most 16 KiB.
func tlsRecordsOf(typ byte, msgs ...[]byte) []byte {
	var all, out []byte
	for _, m := range msgs {
		all = append(all, m...)
	}
	for len(all) > 0 {
		n := min(len(all), 1<<14)
		out = append(out, typ, 3, 3, byte(n>>8), byte(n))
		out = append(out, all[:n]...)
		all = all[n:]
	}
	return out
}

func handshakeMessage(typ byte, body []byte) []byte {
	return append([]byte{typ, byte(len(body) >> 16), byte(len(body) >> 8), byte(len(body))}, body...)
}

// certOfSize returns a self-signed certificate of exactly n bytes (DER), padded with an
// extension.
func certOfSize(t *testing.T, n int) ([]byte, *x509.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pad := 100
	for range 10 {
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "big.example", Organization: []string{"Bound Test"}},
			NotBefore: time.Unix(1700000000, 0), NotAfter: time.Unix(1800000000, 0),
			ExtraExtensions: []pkix.Extension{{Id: []int{1, 3, 6, 1, 4, 1, 99999, 1}, Value: make([]byte, pad)}}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
		if err != nil {
			t.Fatal(err)
		}
		if len(der) == n {
			c, err := x509.ParseCertificate(der)
			if err != nil {
				t.Fatal(err)
			}
			return der, c
		}
		pad += n - len(der)
	}
	t.Fatalf("no certificate of %d bytes", n)
	return nil, nil
}

// serverHello12 is a TLS 1.2 ServerHello choosing cipher.
func serverHello12(cipher uint16) []byte {
	b := make([]byte, 2+32+1+2+1)
	binary.BigEndian.PutUint16(b, tls.VersionTLS12)
	binary.BigEndian.PutUint16(b[35:], cipher)
	return handshakeMessage(tlsServerHello, b)
}

// TestTLSCertificateBound reads a leaf certificate of MaxTLSMessage-6 bytes (the message's
// two lengths and the leaf: the bound), across 16 KiB records and 1,448-byte segments, and
// gives up on one a byte longer, counting it; both handshakes still have their record.
func TestTLSCertificateBound(t *testing.T) {
	t.Parallel()
	var hello []byte
	c, s := net.Pipe()
	go func() {
		tls.Client(c, &tls.Config{ServerName: "big.example", MaxVersion: tls.VersionTLS12}).Handshake()
		c.Close()
	}()
	buf := make([]byte, 4096)
	n, _ := s.Read(buf)
	hello = buf[:n]
	s.Close()
	for _, over := range []int{0, 1} {
		der, cert := certOfSize(t, MaxTLSMessage-6+over)
		var recs []Record
		tbl := NewTable(Config{}, func(r Record) { recs = append(recs, r) })
		f := newTLSFeed(tbl, 42000)
		f.send(0, hello)
		chain := []byte{byte((len(der) + 3) >> 16), byte((len(der) + 3) >> 8), byte(len(der) + 3), byte(len(der) >> 16), byte(len(der) >> 8), byte(len(der))}
		f.send(1, tlsRecordsOf(22, serverHello12(tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256), handshakeMessage(tlsCertificate, append(chain, der...)),
			handshakeMessage(14, nil)))
		if b := tbl.tls.buffered; b != 0 {
			t.Errorf("%d bytes still kept after the certificate", b)
		}
		f.send(0, tlsRecordsOf(20, []byte{1}))
		f.send(1, append(tlsRecordsOf(20, []byte{1}), tlsRecordsOf(22, make([]byte, 40))...))
		tbl.Flush()
		var got []Record
		for _, r := range recs {
			if r.Layer == records.LayerTLS {
				got = append(got, r)
			}
		}
		want := records.TLS{Version: tls.VersionTLS12, Cipher: tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}
		if over == 0 {
			want.NotAfter, want.Issuer = cert.NotAfter.Unix(), cert.Issuer.String()
		}
		if len(got) != 1 || got[0].TLS != want || got[0].ServerName != "big.example" || got[0].CT.Samples != 1 {
			t.Errorf("leaf of %d bytes: records %+v, want one of %+v with a ct", len(der), got, want)
		}
		if s := tbl.Stats(); s.TLSCertsSkipped != uint64(over) {
			t.Errorf("leaf of %d bytes: %d certificates skipped, want %d", len(der), s.TLSCertsSkipped, over)
		}
	}
}

// recordedHandshake runs Go's TLS client and server over a pipe, each write a chunk: the
// client's first.
func recordedHandshake(t testing.TB, version uint16) [][]byte {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "fuzz.example"},
		NotBefore: time.Unix(1700000000, 0), NotAfter: time.Unix(1800000000, 0), DNSNames: []string{"fuzz.example"}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert := tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	c, s := net.Pipe()
	var mu sync.Mutex
	var chunks [][]byte
	rec := func(conn net.Conn, side byte) net.Conn {
		return &recording{Conn: conn, side: side, mu: &mu, chunks: &chunks}
	}
	done := make(chan struct{})
	go func() {
		tls.Server(rec(s, 1), &tls.Config{Certificates: []tls.Certificate{cert}, MaxVersion: version}).Handshake()
		s.Close()
		close(done)
	}()
	tls.Client(rec(c, 0), &tls.Config{ServerName: "fuzz.example", InsecureSkipVerify: true, MaxVersion: version}).Handshake()
	c.Close()
	<-done
	mu.Lock()
	defer mu.Unlock()
	return chunks
}

type recording struct {
	net.Conn
	side   byte
	mu     *sync.Mutex
	chunks *[][]byte
}

func (r *recording) Write(b []byte) (int, error) {
	r.mu.Lock()
	*r.chunks = append(*r.chunks, append([]byte{r.side}, b...))
	r.mu.Unlock()
	return r.Conn.Write(b)
}

// FuzzTLSHandshake feeds arbitrary segments to a TLS handshake's decoding (each input byte
// string: a side byte, a length byte, the segment, repeated): it must never panic, never keep
// more than MaxTLSMessage bytes in a direction, give back every kept byte when the
// conversation ends, and emit records within the records' limits.
func FuzzTLSHandshake(f *testing.F) {
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		var in []byte
		side := byte(0)
		for _, c := range recordedHandshake(f, v) {
			for b := c[1:]; len(b) > 0; {
				n := min(len(b), 255)
				in = append(in, c[0]^side, byte(n)) // 1: the other side sends
				in = append(in, b[:n]...)
				b, side = b[n:], c[0]
			}
		}
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var recs []Record
		tbl := NewTable(Config{}, func(r Record) { recs = append(recs, r) })
		fd := newTLSFeed(tbl, 43000)
		side := 0
		for len(data) >= 2 {
			n := min(int(data[1]), len(data)-2)
			if data[0]&1 != 0 {
				side = 1 - side
			}
			seg := data[2 : 2+n]
			data = data[2+n:]
			if len(seg) == 0 {
				continue
			}
			fd.packet(side, FlagACK, seg)
			if c := tbl.convs.at(0); c.tls != nil {
				for _, d := range c.tls.dir {
					if cap(d.buf) > MaxTLSMessage || d.want > MaxTLSMessage {
						t.Fatalf("%d bytes kept (want %d)", cap(d.buf), d.want)
					}
				}
			}
		}
		tbl.Flush()
		if tbl.tls.buffered != 0 {
			t.Fatalf("%d bytes kept after the end", tbl.tls.buffered)
		}
		for _, r := range recs {
			if len(r.TLS.Issuer) > records.MaxIssuerLen || len(r.ServerName) > maxName || strings.ToLower(r.ServerName) != r.ServerName {
				t.Fatalf("record %+v", r)
			}
		}
	})
}

// TestGoHandshakes reads the handshakes of Go's TLS client and server (the fuzz target's
// seeds), each direction's writes cut into segments of 100 bytes: TLS 1.2 with the
// certificate, TLS 1.3 without.
func TestGoHandshakes(t *testing.T) {
	t.Parallel()
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		var recs []Record
		tbl := NewTable(Config{}, func(r Record) { recs = append(recs, r) })
		f := newTLSFeed(tbl, 44000)
		f.maxPayload = 100
		for _, c := range recordedHandshake(t, v) {
			f.send(int(c[0]), c[1:])
		}
		tbl.Flush()
		var got []Record
		for _, r := range recs {
			if r.Layer == records.LayerTLS {
				got = append(got, r)
			}
		}
		if len(got) != 1 || got[0].TLS.Version != v || got[0].TLS.Cipher == 0 || got[0].ServerName != "fuzz.example" ||
			got[0].CT.Samples != 1 || (got[0].TLS.NotAfter == 1800000000) != (v == tls.VersionTLS12) {
			t.Errorf("version %#x: records %+v", v, got)
		}
	}
}
