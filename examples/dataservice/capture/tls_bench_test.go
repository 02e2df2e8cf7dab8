package capture_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/capture"
	"golang.org/x/net/dns/dnsmessage"
)

// BenchmarkMix feeds a fresh table, in one goroutine, the frames of 200 rounds of a mix: a
// DNS query and its answer over UDP, an HTTPS connection (its TLS handshake, 1.2 and 1.3
// in turn, then 8 requests and responses) and an HTTP one (a GET and its response), each
// opened and closed: 11,100 packets, of which the DNS and TLS decoding reads one in eight.
func BenchmarkMix(b *testing.B) {
	frames := mixFrames(b, 200)
	b.ReportAllocs()
	cpu0 := cpuTime()
	var p capture.Packet
	for b.Loop() {
		tbl := capture.NewTable(capture.Config{}, func(capture.Record) {})
		for i, f := range frames {
			p.Time = 1700000040e9 + int64(i)*10_000 // 10 µs apart
			if err := capture.Decode(capture.LinkEthernet, f, &p); err != nil {
				b.Fatal(err)
			}
			tbl.Packet(&p)
		}
		tbl.Flush()
	}
	n := float64(b.N) * float64(len(frames))
	b.ReportMetric(n/b.Elapsed().Seconds(), "packets/s")
	b.ReportMetric(float64(cpuTime()-cpu0)/n, "cpu-ns/packet")
}

// chunk is what one side of a recorded TLS connection wrote at once.
type chunk struct {
	server bool
	data   []byte
}

// mixFrames returns the frames of BenchmarkMix's rounds.
func mixFrames(tb testing.TB, rounds int) [][]byte {
	hs := [2][]chunk{goHandshake(tb, tls.VersionTLS12), goHandshake(tb, tls.VersionTLS13)}
	var frames [][]byte
	resolver, web, https := [4]byte{10, 20, 0, 53}, [4]byte{10, 21, 0, 80}, [4]byte{10, 21, 0, 43}
	for r := range rounds {
		cl := [4]byte{10, 22, byte(r >> 8), byte(r)}
		port := uint16(20000 + r)
		q := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: uint16(r), RecursionDesired: true})
		q.StartQuestions()
		q.Question(dnsmessage.Question{Name: dnsmessage.MustNewName("www.example.com."), Type: dnsmessage.TypeA, Class: dnsmessage.ClassINET})
		query, _ := q.Finish()
		a := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: uint16(r), Response: true, RecursionDesired: true, RecursionAvailable: true})
		a.StartQuestions()
		a.Question(dnsmessage.Question{Name: dnsmessage.MustNewName("www.example.com."), Type: dnsmessage.TypeA, Class: dnsmessage.ClassINET})
		a.StartAnswers()
		a.AResource(dnsmessage.ResourceHeader{Name: dnsmessage.MustNewName("www.example.com."), Class: dnsmessage.ClassINET, TTL: 60},
			dnsmessage.AResource{A: https})
		answer, _ := a.Finish()
		frames = append(frames, udpFrame(cl, resolver, port, 53, query), udpFrame(resolver, cl, 53, port, answer))

		c := &frameConn{cl: cl, sv: https, cport: port + 10000, sport: 443}
		c.open()
		for _, ch := range hs[r%2] {
			c.send(ch.server, ch.data)
		}
		for range 8 {
			c.send(false, make([]byte, 200))
			c.send(true, make([]byte, 2400))
			c.ack(false)
		}
		c.close()
		frames = append(frames, c.frames...)

		h := &frameConn{cl: cl, sv: web, cport: port + 20000, sport: 80}
		h.open()
		h.send(false, []byte("GET /index.html HTTP/1.1\r\nHost: www.example.com\r\n\r\n"))
		h.ack(true)
		h.send(true, make([]byte, 2000))
		h.ack(false)
		h.close()
		frames = append(frames, h.frames...)
	}
	return frames
}

// frameConn builds the frames of one TCP connection.
type frameConn struct {
	cl, sv       [4]byte
	cport, sport uint16
	seq          [2]uint32 // by side: 0 the client
	frames       [][]byte
}

func (c *frameConn) frame(server bool, flags uint8, data []byte) {
	s := 0
	src, dst, sp, dp := c.cl, c.sv, c.cport, c.sport
	if server {
		s, src, dst, sp, dp = 1, c.sv, c.cl, c.sport, c.cport
	}
	f := tcpFrame(src, dst, sp, dp, flags, c.seq[s], c.seq[1-s], len(data))
	copy(f[14+20+20:], data)
	c.frames = append(c.frames, f)
	c.seq[s] += uint32(len(data))
	if flags&(capture.FlagSYN|capture.FlagFIN) != 0 {
		c.seq[s]++
	}
}

func (c *frameConn) open() {
	c.seq = [2]uint32{1000, 5000}
	c.frame(false, capture.FlagSYN, nil)
	c.frame(true, capture.FlagSYN|capture.FlagACK, nil)
	c.frame(false, capture.FlagACK, nil)
}

// send sends data in segments of at most 1,448 bytes.
func (c *frameConn) send(server bool, data []byte) {
	for len(data) > 0 {
		n := min(len(data), 1448)
		c.frame(server, capture.FlagACK|capture.FlagPSH, data[:n])
		data = data[n:]
	}
}

func (c *frameConn) ack(server bool) { c.frame(server, capture.FlagACK, nil) }

func (c *frameConn) close() {
	c.frame(false, capture.FlagFIN|capture.FlagACK, nil)
	c.frame(true, capture.FlagFIN|capture.FlagACK, nil)
	c.frame(false, capture.FlagACK, nil)
}

// goHandshake records a handshake of Go's TLS client and server over a pipe: what each wrote.
func goHandshake(tb testing.TB, version uint16) []chunk {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "www.example.com"},
		NotBefore: time.Unix(1700000000, 0), NotAfter: time.Unix(1800000000, 0), DNSNames: []string{"www.example.com"}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatal(err)
	}
	c, s := net.Pipe()
	var mu sync.Mutex
	var chunks []chunk
	done := make(chan struct{})
	go func() {
		tls.Server(&recordConn{s, true, &mu, &chunks}, &tls.Config{MaxVersion: version,
			Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}).Handshake()
		s.Close()
		close(done)
	}()
	tls.Client(&recordConn{c, false, &mu, &chunks}, &tls.Config{ServerName: "www.example.com", InsecureSkipVerify: true, MaxVersion: version}).Handshake()
	c.Close()
	<-done
	return chunks
}

type recordConn struct {
	net.Conn
	server bool
	mu     *sync.Mutex
	chunks *[]chunk
}

func (r *recordConn) Write(b []byte) (int, error) {
	r.mu.Lock()
	*r.chunks = append(*r.chunks, chunk{r.server, append([]byte(nil), b...)})
	r.mu.Unlock()
	return r.Conn.Write(b)
}
