package transport_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/fnapi/fnapi/transport"
)

// BenchmarkWSEcho measures echo calls per second over one WebSocket connection with 32 calls
// in flight. Each call has an id of its own; an answer that is not a result fails the benchmark.
func BenchmarkWSEcho(b *testing.B) {
	srv, _ := newStreamServer(b, transport.Config{})
	conn := dialWS(b, srv, "/api/ws", nil)
	const inFlight = 32
	slots := make(chan struct{}, inFlight)
	errc := make(chan error, 1)
	b.ResetTimer()
	go func() {
		msg := make([]byte, 0, 64)
		for i := range b.N {
			slots <- struct{}{}
			msg = append(strconv.AppendInt(append(msg[:0], `{"id":`...), int64(i), 10), `,"call":"echo","args":{"a":1,"b":"x"}}`...)
			if err := conn.Write(context.Background(), websocket.MessageText, msg); err != nil {
				errc <- err
				return
			}
		}
	}()
	for range b.N {
		_, answer, err := conn.Read(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if !bytes.Contains(answer, []byte(`"type":"result"`)) {
			b.Fatalf("answer %s", answer)
		}
		<-slots
	}
	b.StopTimer()
	select {
	case err := <-errc:
		b.Fatal(err)
	default:
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

// BenchmarkNDJSONStream measures chunks per second of one NDJSON stream of 100-byte chunks, not
// compressed (BenchmarkCompressStream has what gzip costs).
func BenchmarkNDJSONStream(b *testing.B) {
	srv, _ := newStreamServer(b, transport.Config{})
	b.ResetTimer()
	req, _ := http.NewRequest("GET", srv.URL+"/api/stream/count?size=100&n="+strconv.Itoa(b.N), nil)
	req.Header.Set("Accept-Encoding", "identity")
	res, err := srv.Client().Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	br := bufio.NewReaderSize(res.Body, 64<<10)
	n := 0
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			break
		}
		if len(line) > 100 {
			n++
		}
	}
	b.StopTimer()
	if n != b.N {
		b.Fatalf("%d chunks, want %d", n, b.N)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "chunks/s")
}

// BenchmarkWSStream measures chunks per second of one WebSocket stream of 100-byte chunks.
func BenchmarkWSStream(b *testing.B) {
	srv, _ := newStreamServer(b, transport.Config{})
	conn := dialWS(b, srv, "/api/ws", nil)
	b.ResetTimer()
	sendMsg(b, conn, fmt.Sprintf(`{"id":1,"stream":"count","args":{"size":100,"n":%d}}`, b.N))
	for i := 0; ; i++ {
		_, r, err := conn.Reader(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, r)
		if n < 100 { // the end message
			if i != b.N {
				b.Fatalf("%d chunks, want %d", i, b.N)
			}
			break
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "chunks/s")
}

// BenchmarkWSIdleMemory measures the server's memory per idle WebSocket connection (over TLS):
// a child process opens FNAPI_IDLE_CONNS connections (default 2,000) and keeps them open, while
// this process, the server, compares its heap and stacks before and after. Its result does not
// depend on b.N.
func BenchmarkWSIdleMemory(b *testing.B) {
	n := 2000
	if s := os.Getenv("FNAPI_IDLE_CONNS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	srv, _ := newStreamServer(b, transport.Config{})
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	before := inUse()
	cmd := exec.Command(os.Args[0], "-test.run=^TestIdleClients$")
	cmd.Env = append(os.Environ(), "FNAPI_IDLE_URL="+srv.URL, "FNAPI_IDLE_CERT="+string(cert), "FNAPI_IDLE_N="+strconv.Itoa(n))
	stdin, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { stdin.Close(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "ready") {
		b.Fatalf("client process: %q, %v", line, err)
	}
	time.Sleep(time.Second) // let the handshakes' garbage go
	after := inUse()
	for range b.N {
	}
	b.ReportMetric(float64(after-before)/float64(n), "B/conn")
	b.ReportMetric(float64(n), "conns")
}

// inUse returns the bytes of heap and goroutine stacks in use after a collection.
func inUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse + m.StackInuse)
}

// TestIdleClients is the child process of BenchmarkWSIdleMemory; it does nothing otherwise.
func TestIdleClients(t *testing.T) {
	base := os.Getenv("FNAPI_IDLE_URL")
	if base == "" {
		t.Skip("the client side of BenchmarkWSIdleMemory")
	}
	n, _ := strconv.Atoi(os.Getenv("FNAPI_IDLE_N"))
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM([]byte(os.Getenv("FNAPI_IDLE_CERT")))
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	u := "wss" + strings.TrimPrefix(base, "https") + "/api/ws"
	conns := make([]*websocket.Conn, 0, n)
	for range n {
		c, _, err := websocket.Dial(context.Background(), u, &websocket.DialOptions{HTTPClient: hc})
		if err != nil {
			t.Fatal(err)
		}
		c.CloseRead(context.Background()) // answer pings while idle
		conns = append(conns, c)
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin) // until the benchmark closes stdin
	for _, c := range conns {
		_ = c.CloseNow()
	}
}
