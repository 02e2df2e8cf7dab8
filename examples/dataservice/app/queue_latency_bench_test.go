package app_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/inlet"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// BenchmarkQueueLatency measures, from datagram to queryable, one node collecting NetFlow v5
// (-netflow), publishing through a real nats-server (-queue) and consuming into its DuckDB
// (-consume). It sends FNAPI_BENCH_FLOWS flows a second (default 100,000: datagrams of 30
// flows over 20,000 conversations) for FNAPI_BENCH_SECONDS (default 20); ten datagrams a
// second are markers, each with a server address of its own, and a query every 20 ms finds
// the markers stored: a marker's latency is from its send to the first answer holding it.
// It reports the latency's p50 and p99, the markers seen, and the flows/s sent.
// FNAPI_BENCH_DIRECT=1 runs the same without the queue (collector to DuckDB).
func BenchmarkQueueLatency(b *testing.B) {
	rate, seconds := envInt("FNAPI_BENCH_FLOWS", 100_000), envInt("FNAPI_BENCH_SECONDS", 20)
	in := inlet.Configuration{NetFlow: "127.0.0.1:0"}
	if os.Getenv("FNAPI_BENCH_DIRECT") != "1" { // 1: without the queue, to compare
		in.Queue, in.Consume = testenv.NATS(b).URL, true
	}
	b.Setenv("SVC_ADMIN_PASSWORD", "bench password")
	ctx := context.Background()
	a, err := app.Open(ctx, app.Config{DataDir: b.TempDir(), Inlet: in,
		Auth: []auth.Option{auth.WithArgon2(auth.Argon2{Memory: 64, Iterations: 1, Parallelism: 1})}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = a.Close(context.Background()) })
	srv := httptest.NewTLSServer(a.Handler())
	b.Cleanup(srv.Close)
	anon, _ := client.New(srv.URL+"/api", client.WithHTTPClient(srv.Client()))
	var session string
	if err := anon.Call(ctx, "login", map[string]string{"user": "admin", "password": "bench password"}, &session); err != nil {
		b.Fatal(err)
	}
	c, _ := client.New(srv.URL+"/api", client.WithHTTPClient(srv.Client()), client.WithSession(session))
	if err := c.Call(ctx, "set-config", map[string]any{"values": map[string]any{"rate_limit": 0}}, nil); err != nil {
		b.Fatal(err)
	}
	addr, _ := a.FlowAddrs()
	conn, err := net.Dial("udp", addr)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()

	var mu sync.Mutex
	sent := map[string]time.Time{} // marker server address -> when sent
	var lat []float64
	final := -1 // the markers sent, once sending ended
	stop, all := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { // the reader: which markers answer a query
		seen := map[string]bool{}
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			var res []struct{ Data [][2][]any }
			if err := c.Call(ctx, "query", map[string]any{"expr": "records BY server.ip WHERE server.ip IN 10.200.0.0/16 SINCE @now-600"}, &res); err != nil {
				b.Error(err)
				return
			}
			now := time.Now()
			mu.Lock()
			for _, row := range res[0].Data {
				ip := row[0][0].(string)
				if t, ok := sent[ip]; ok && !seen[ip] {
					seen[ip] = true
					lat = append(lat, now.Sub(t).Seconds())
				}
			}
			if len(lat) == final {
				close(all)
				final = -1
			}
			mu.Unlock()
		}
	})
	b.ResetTimer()
	perMs := float64(rate) / 30 / 1000 // datagrams a millisecond
	start, flows, markers := time.Now(), 0, 0
	tick := time.NewTicker(time.Millisecond)
	for datagrams := 0; time.Since(start) < time.Duration(seconds)*time.Second; {
		<-tick.C
		for due := int(perMs * float64(time.Since(start).Microseconds()) / 1000); datagrams < due; datagrams++ {
			d, marker := flowDatagram(flows, markers, time.Since(start) >= time.Duration(markers)*100*time.Millisecond)
			if marker != "" {
				mu.Lock()
				sent[marker] = time.Now()
				mu.Unlock()
				markers++
			}
			if _, err := conn.Write(d); err != nil {
				b.Fatal(err)
			}
			flows += 30
		}
	}
	tick.Stop()
	elapsed := time.Since(start)
	mu.Lock()
	final = markers
	mu.Unlock()
	select {
	case <-all:
	case <-time.After(30 * time.Second): // the markers not seen by then count as lost
	}
	close(stop)
	wg.Wait()
	b.StopTimer()
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(lat)
	q := func(p float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(int(p*float64(len(lat))), len(lat)-1)]
	}
	b.ReportMetric(q(0.5), "p50-s")
	b.ReportMetric(q(0.99), "p99-s")
	b.ReportMetric(float64(len(lat)), "markers-seen")
	b.ReportMetric(float64(markers), "markers-sent")
	b.ReportMetric(float64(flows)/elapsed.Seconds(), "flows/s")
}

// flowDatagram is NetFlow v5 datagram i of 30 flows; with marker, its flows go to the server
// 10.200.X.Y (X.Y from m), which it returns, else to 10.9.0.2 from one of 20,000 clients.
func flowDatagram(i, m int, marker bool) ([]byte, string) {
	d := binary.BigEndian.AppendUint16(nil, 5)
	d = binary.BigEndian.AppendUint16(d, 30)
	d = binary.BigEndian.AppendUint32(d, 60_000)
	d = binary.BigEndian.AppendUint32(d, uint32(time.Now().Unix()))
	d = append(d, make([]byte, 12)...)
	server, ip := [4]byte{10, 9, 0, 2}, ""
	if marker {
		server = [4]byte{10, 200, byte(m >> 8), byte(m)}
		ip = fmt.Sprintf("10.200.%d.%d", byte(m>>8), byte(m))
	}
	for j := range 30 {
		c := (i + j) % 20_000
		d = append(d, 10, 8, byte(c>>8), byte(c))
		d = append(d, server[:]...)
		d = append(d, 0, 0, 0, 0, 0, 1, 0, 2)
		for _, v := range []uint32{3, 1500, 59_000, 60_000} {
			d = binary.BigEndian.AppendUint32(d, v)
		}
		d = append(d, 0x9c, 0x40, 0, 22, 0, 0, 6, 0)
		d = append(d, make([]byte, 8)...)
	}
	return d, ip
}

// envInt is the integer in the environment variable name, or def.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}
