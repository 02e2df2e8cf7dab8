package capture_test

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/capture"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// opensslHandshake runs openssl s_client against openssl s_server (certificate and key in
// dir) with the flags given to each, through a proxy that records what each side sent.
func opensslHandshake(t *testing.T, dir string, serverFlags, clientFlags []string) []chunk {
	t.Helper()
	openssl := testenv.Need(t, "openssl", "openssl")
	port := testenv.FreePort(t)
	opensslServer(t, "", dir, fmt.Sprintf("127.0.0.1:%d", port), serverFlags...)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var mu sync.Mutex
	var chunks []chunk
	var copies sync.WaitGroup
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			c.Close()
			return
		}
		pipe := func(from, to net.Conn, server bool) {
			defer copies.Done()
			buf := make([]byte, 64<<10)
			for {
				n, err := from.Read(buf)
				if n > 0 {
					mu.Lock()
					chunks = append(chunks, chunk{server, bytes.Clone(buf[:n])})
					mu.Unlock()
					to.Write(buf[:n])
				}
				if err != nil {
					to.(*net.TCPConn).CloseWrite()
					return
				}
			}
		}
		copies.Add(2)
		go pipe(c, s, false)
		go pipe(s, c, true)
		copies.Wait()
		c.Close()
		s.Close()
	}()
	cl := exec.Command(openssl, append([]string{"s_client", "-connect", ln.Addr().String()}, clientFlags...)...)
	cl.Stdin = strings.NewReader("") // the client ends after the handshake
	if b, err := cl.CombinedOutput(); err != nil {
		t.Fatalf("openssl s_client: %v\n%s", err, b)
	}
	copies.Wait()
	mu.Lock()
	defer mu.Unlock()
	return chunks
}

// opensslServer starts openssl s_server on addr, in network namespace ns unless "", with the
// certificate and key in dir, for one connection, and returns once it accepts.
func opensslServer(t *testing.T, ns, dir, addr string, flags ...string) {
	t.Helper()
	openssl := testenv.Need(t, "openssl", "openssl")
	args := append([]string{openssl, "s_server", "-accept", addr, "-cert", filepath.Join(dir, "cert.pem"),
		"-key", filepath.Join(dir, "key.pem"), "-naccept", "1"}, flags...)
	if ns != "" {
		args = append([]string{"ip", "netns", "exec", ns}, args...)
	}
	srv := exec.Command(args[0], args[1:]...)
	stdin, err := srv.StdinPipe() // s_server stops at the end of its input: keep it open
	if err != nil {
		t.Fatal(err)
	}
	out, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); srv.Process.Kill(); srv.Wait() })
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if sc.Text() == "ACCEPT" {
				close(ready)
				break
			}
		}
		io.Copy(io.Discard, out)
	}()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatal("openssl s_server did not start")
	}
}

// segment is one TCP segment of a recorded connection in a capture file.
type segment struct {
	server bool
	data   []byte
	at     float64 // seconds after T0
}

// segments cuts chunks into segments of at most size bytes, chunk i sent 10 ms after chunk
// i-1, its segments 0.1 ms apart.
func segments(chunks []chunk, size int) []segment {
	var segs []segment
	at := 0.010
	for _, c := range chunks {
		for i := 0; i < len(c.data); i += size {
			segs = append(segs, segment{c.server, c.data[i:min(i+size, len(c.data))], at + float64(i/size)*0.0001})
		}
		at += 0.010
	}
	return segs
}

// tlsPcap writes segs as a TCP connection from 10.10.0.1:41000 to 10.10.0.2:443 (a handshake
// before, from T0) with scapy, and returns its path.
func tlsPcap(t *testing.T, name string, segs []segment) string {
	t.Helper()
	type pkt struct {
		Src, Dst     string
		Sport, Dport int
		Flags        string
		Seq, Ack     uint32
		Data         string
		T            float64
	}
	cseq, sseq := uint32(1001), uint32(5001)
	pkts := []pkt{{"10.10.0.1", "10.10.0.2", 41000, 443, "S", 1000, 0, "", 0},
		{"10.10.0.2", "10.10.0.1", 443, 41000, "SA", 5000, 1001, "", 0.001},
		{"10.10.0.1", "10.10.0.2", 41000, 443, "A", 1001, 5001, "", 0.002}}
	for _, s := range segs {
		if s.server {
			pkts = append(pkts, pkt{"10.10.0.2", "10.10.0.1", 443, 41000, "PA", sseq, cseq, hex.EncodeToString(s.data), s.at})
			sseq += uint32(len(s.data))
		} else {
			pkts = append(pkts, pkt{"10.10.0.1", "10.10.0.2", 41000, 443, "PA", cseq, sseq, hex.EncodeToString(s.data), s.at})
			cseq += uint32(len(s.data))
		}
	}
	js, _ := json.Marshal(pkts)
	snippet := fmt.Sprintf("for p in json.loads(%q): pkts.append(tcp(p['Src'], p['Dst'], p['Sport'], p['Dport'], p['Flags'], p['Seq'], p['Ack'], bytes.fromhex(p['Data']), t=p['T']))", js)
	dir := t.TempDir()
	if err := exec.Command("/usr/bin/python3", "-c", "import scapy.all").Run(); err != nil {
		scapyPcap(t, "handshakeAndGet") // skips, or fails under CI, as the other scapy tests
	}
	in, _ := json.Marshal(map[string]string{name: snippet})
	cmd := exec.Command("/usr/bin/python3", "-c", scapyPrelude, dir)
	cmd.Stdin = bytes.NewReader(in)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scapy: %v\n%s", err, b)
	}
	return filepath.Join(dir, name+".pcap")
}

// serverRecordEnd returns the time of the segment holding the last byte of the server's
// first TLS record after its ChangeCipherSpec (its Finished), walking the records.
func serverRecordEnd(t *testing.T, segs []segment) float64 {
	t.Helper()
	var stream []byte
	var ends []float64 // the time of each byte of stream
	for _, s := range segs {
		if s.server {
			stream = append(stream, s.data...)
			for range s.data {
				ends = append(ends, s.at)
			}
		}
	}
	ccs := false
	for off := 0; off+5 <= len(stream); {
		end := off + 5 + int(binary.BigEndian.Uint16(stream[off+3:]))
		if ccs {
			return ends[end-1]
		}
		ccs = stream[off] == 20
		off = end
	}
	t.Fatal("no record after the server's ChangeCipherSpec")
	return 0
}

// makeCert makes a self-signed ECDSA certificate for name with openssl in dir, and returns
// it parsed.
func makeCert(t *testing.T, dir, name string) *x509.Certificate {
	t.Helper()
	openssl := testenv.Need(t, "openssl", "openssl")
	if b, err := exec.Command(openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
		"-keyout", filepath.Join(dir, "key.pem"), "-out", filepath.Join(dir, "cert.pem"), "-days", "30",
		"-subj", "/O=Probe Test/CN="+name).CombinedOutput(); err != nil {
		t.Fatalf("openssl req: %v\n%s", err, b)
	}
	b, err := os.ReadFile(filepath.Join(dir, "cert.pem"))
	if err != nil {
		t.Fatal(err)
	}
	blk, _ := pem.Decode(b)
	if blk == nil {
		t.Fatal("no PEM block in cert.pem")
	}
	c, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// tlsRecords returns the TLS records of a capture, and the transport records' server names.
func tlsRecords(t *testing.T, path string) ([]capture.Record, []string, capture.Stats) {
	t.Helper()
	recs, tbl := readAllRecords(t, path, capture.Config{})
	var out []capture.Record
	var names []string
	for _, r := range recs {
		switch r.Layer {
		case records.LayerTLS:
			out = append(out, r)
		case records.LayerTransport:
			names = append(names, r.ServerName)
		}
	}
	return out, names, tbl.Stats()
}

// TestTLS12Handshake captures a real TLS 1.2 handshake (openssl, a certificate made by
// openssl, records of at most 512 bytes) cut into segments of 200 bytes, so that the
// certificate crosses TLS records and TCP segments: one record with the version, cipher,
// SNI, the certificate's expiry and issuer, and ct up to the server's Finished.
func TestTLS12Handshake(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cert := makeCert(t, dir, "tls12.example")
	chunks := opensslHandshake(t, dir, []string{"-tls1_2", "-max_send_frag", "512"},
		[]string{"-servername", "TLS12.example", "-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256"})
	segs := segments(chunks, 200)
	recs, names, st := tlsRecords(t, tlsPcap(t, "tls12", segs))
	if len(recs) != 1 {
		t.Fatalf("%d TLS records, want 1: %+v", len(recs), recs)
	}
	r := recs[0]
	want := records.TLS{Version: tls.VersionTLS12, Cipher: tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
		NotAfter: cert.NotAfter.Unix(), Issuer: cert.Issuer.String()}
	if r.TLS != want || r.ServerName != "tls12.example" {
		t.Errorf("record %+v named %q, want %+v named tls12.example", r.TLS, r.ServerName, want)
	}
	wantTiming(t, "ct", r.CT, serverRecordEnd(t, segs)-segs[0].at)
	if r.Client.Port != 41000 || r.Server.Port != 443 || r.Protocol != capture.ProtoTCP || r.Time != 1700000040 {
		t.Errorf("client port %d server port %d protocol %d time %d", r.Client.Port, r.Server.Port, r.Protocol, r.Time)
	}
	if len(names) != 1 || names[0] != "tls12.example" || st.TLSRecords != 1 || st.TLSCertsSkipped != 0 {
		t.Errorf("transport names %q, stats %+v", names, st)
	}
}

// TestTLS13Handshake captures a real TLS 1.3 handshake: the version from supported_versions,
// the cipher suite, the SNI, no certificate (encrypted), and ct up to the end of the server's
// first flight (its last segment before the client's Finished).
func TestTLS13Handshake(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	makeCert(t, dir, "tls13.example")
	chunks := opensslHandshake(t, dir, []string{"-tls1_3"},
		[]string{"-servername", "tls13.example", "-tls1_3", "-ciphersuites", "TLS_AES_256_GCM_SHA384"})
	segs := segments(chunks, 1448)
	var end float64
	for i, s := range segs {
		if i > 0 && !s.server && segs[i-1].server {
			end = segs[i-1].at
			break
		}
	}
	recs, _, _ := tlsRecords(t, tlsPcap(t, "tls13", segs))
	if len(recs) != 1 {
		t.Fatalf("%d TLS records, want 1: %+v", len(recs), recs)
	}
	r := recs[0]
	if want := (records.TLS{Version: tls.VersionTLS13, Cipher: tls.TLS_AES_256_GCM_SHA384}); r.TLS != want || r.ServerName != "tls13.example" {
		t.Errorf("record %+v named %q, want %+v named tls13.example", r.TLS, r.ServerName, want)
	}
	wantTiming(t, "ct", r.CT, end-segs[0].at)
}
