package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/internal/testutil"
)

// queuedRecords returns n ingest records of call i: distinct clients, one server, in the last
// minutes.
func queuedRecords(i, n int) []map[string]any {
	now := time.Now().Unix()
	recs := make([]map[string]any, n)
	for j := range recs {
		recs[j] = map[string]any{"time": now - 60, "protocol": "tcp",
			"client": map[string]any{"ip": fmt.Sprintf("10.%d.%d.%d", i/250, i%250, j%250), "port": 1024 + j, "bytes": 100, "packets": 1},
			"server": map[string]any{"ip": "2001:db8::7", "port": 443, "bytes": 1000, "packets": 2}}
	}
	return recs
}

// storedRecords returns the records c's node holds in the last ten minutes.
func storedRecords(t *testing.T, c *client.Client) int64 {
	t.Helper()
	var res []struct{ Data [][2][]any }
	if err := c.Call(context.Background(), "query", map[string]any{"expr": "records BY server.ip SINCE @now-600"}, &res); err != nil {
		t.Fatal(err)
	}
	if len(res) == 0 || len(res[0].Data) == 0 {
		return 0
	}
	return int64(res[0].Data[0][1][0].(float64))
}

// TestQueueConsumerKilled runs a sensor publishing through NATS (ingest) and a consuming node
// on DuckDB, killed (SIGKILL) while it stores and started again on its data: every record
// ingested is stored once.
func TestQueueConsumerKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts NATS and two nodes")
	}
	nats := testenv.NATS(t)
	sensorData, storeData := t.TempDir(), t.TempDir()
	sensor := startService(t, "-addr", "127.0.0.1:0", "-data", sensorData, "-queue", nats.URL, "-metrics", "127.0.0.1:0")
	consumerArgs := []string{"-addr", "127.0.0.1:0", "-data", storeData, "-queue", nats.URL, "-consume"}
	consumer := startService(t, consumerArgs...)
	sc, cc := adminClient(t, sensor, sensorData), adminClient(t, consumer, storeData)
	const calls, size = 60, 500
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	ingested := make(chan int, calls)
	wg.Go(func() {
		for i := range calls {
			var ing struct{ Ingested int }
			if err := sc.Call(context.Background(), "ingest", map[string]any{"records": queuedRecords(i, size)}, &ing); err != nil {
				errs <- err
				return
			}
			ingested <- ing.Ingested
		}
	})
	testutil.Eventually(t, "the consumer storing", func() bool { return storedRecords(t, cc) > 0 })
	_ = consumer.cmd.Process.Kill()
	_ = consumer.cmd.Wait()
	consumer = startService(t, consumerArgs...)
	cc = adminClient(t, consumer, storeData)
	wg.Wait()
	close(ingested)
	select {
	case err := <-errs:
		t.Fatalf("ingest through the queue: %v", err)
	default:
	}
	for n := range ingested {
		if n != size {
			t.Fatalf("ingest answered %d records, want %d", n, size)
		}
	}
	var n int64
	for last := int64(-1); n != calls*size; {
		last = n
		testutil.Eventually(t, fmt.Sprintf("%d records stored (progress from %d)", calls*size, last), func() bool {
			n = storedRecords(t, cc)
			return n >= calls*size || n > last
		})
		if n > calls*size {
			t.Fatalf("%d records stored, want %d: some twice", n, calls*size)
		}
	}
	var st struct {
		Queue struct{ Pending, Published uint64 }
	}
	if err := sc.Call(context.Background(), "collector-status", nil, &st); err != nil || st.Queue.Published != calls*size {
		t.Errorf("sensor's collector-status: %+v, %v; want %d published", st, err, calls*size)
	}
	resp, err := http.Get(sensor.metrics)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := fmt.Sprintf("queue_records_published_total %d\n", calls*size); !strings.Contains(string(body), want) || !strings.Contains(string(body), "queue_up 1\n") {
		t.Errorf("the sensor's /metrics lack %q and queue_up 1:\n%s", want, body)
	}
	consumer.stop(t)
	sensor.stop(t)
}

// TestQueueNATSDown starts a sensor while NATS is down: it serves, /readyz names the queue,
// ingest answers UNAVAILABLE, and it recovers when NATS starts. A consuming node cannot start
// without NATS: one line says so.
func TestQueueNATSDown(t *testing.T) {
	if testing.Short() {
		t.Skip("starts NATS and the service")
	}
	nats := testenv.NATS(t)
	nats.Stop()
	line := failStart(t, "-addr", "127.0.0.1:0", "-data", t.TempDir(), "-queue", nats.URL, "-consume")
	if !strings.Contains(line, "queue") || !strings.Contains(line, nats.URL) {
		t.Errorf("start-up error %q does not name the queue", line)
	}
	data := t.TempDir()
	p := startService(t, "-addr", "127.0.0.1:0", "-data", data, "-queue", nats.URL)
	readyz := func() (int, string) {
		resp, err := insecure().Get(p.url + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := readyz(); code != http.StatusServiceUnavailable || !strings.Contains(body, "queue") {
		t.Fatalf("/readyz with NATS down: %d %q, want 503 naming the queue", code, body)
	}
	c := adminClient(t, p, data)
	if err := c.Call(context.Background(), "ingest", map[string]any{"records": queuedRecords(0, 3)}, nil); err == nil || !strings.Contains(err.Error(), "UNAVAILABLE") {
		t.Fatalf("ingest with NATS down: %v, want UNAVAILABLE", err)
	}
	nats.Start()
	testutil.Eventually(t, "/readyz ok once NATS is up", func() bool {
		code, _ := readyz()
		return code == http.StatusOK
	})
	if err := c.Call(context.Background(), "ingest", map[string]any{"records": queuedRecords(0, 3)}, nil); err != nil {
		t.Fatalf("ingest once NATS is up: %v", err)
	}
	p.stop(t)
}

// netflowV5 is a NetFlow v5 datagram of one flow of 3 packets and 1500 bytes from 10.8.X.Y:40000
// to 10.9.0.2:22 (X.Y from i), in the second before the export.
func netflowV5(i int) []byte {
	d := binary.BigEndian.AppendUint16(nil, 5)
	d = binary.BigEndian.AppendUint16(d, 1)
	d = binary.BigEndian.AppendUint32(d, 60_000)
	d = binary.BigEndian.AppendUint32(d, uint32(time.Now().Unix()))
	d = append(d, make([]byte, 12)...)
	d = append(d, 10, 8, byte(i>>8), byte(i), 10, 9, 0, 2, 0, 0, 0, 0, 0, 1, 0, 2)
	for _, v := range []uint32{3, 1500, 59_000, 60_000} {
		d = binary.BigEndian.AppendUint32(d, v)
	}
	d = append(d, 0x9c, 0x40, 0, 22, 0, 0, 6, 0)
	return append(d, make([]byte, 8)...)
}

// TestQueueClickHouseKilled sends a steady stream of NetFlow to a sensor publishing through
// NATS, stored by a consuming node into ClickHouse, which is killed and started again during
// the stream: every flow is stored once (its packets counted once).
func TestQueueClickHouseKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts NATS, ClickHouse and two nodes")
	}
	nats, ch := testenv.NATS(t), testenv.ClickHouse(t)
	sensorData, storeData := t.TempDir(), t.TempDir()
	sensor := startService(t, "-addr", "127.0.0.1:0", "-data", sensorData, "-queue", nats.URL, "-netflow", "127.0.0.1:0")
	consumer := startService(t, "-addr", "127.0.0.1:0", "-data", storeData, "-clickhouse", ch.URL, "-queue", nats.URL, "-consume")
	cc := adminClient(t, consumer, storeData)
	packets := func() int64 {
		var res []struct{ Data [][2][]any }
		if err := cc.Call(context.Background(), "query", map[string]any{"expr": "packets BY server.ip SINCE @now-600"}, &res); err != nil || len(res) == 0 || len(res[0].Data) == 0 {
			return 0
		}
		return int64(res[0].Data[0][1][0].(float64))
	}
	conn, err := net.Dial("udp", sensor.flows["netflow"])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	sent := 0
	send := func(n int) {
		tick := time.NewTicker(5 * time.Millisecond) // 200 flows/s
		defer tick.Stop()
		for range n {
			<-tick.C
			if _, err := conn.Write(netflowV5(sent)); err != nil {
				t.Fatal(err)
			}
			sent++
		}
	}
	send(400)
	testutil.Eventually(t, "flows stored", func() bool { return packets() > 0 })
	ch.Stop()
	send(1000)
	ch.Start()
	send(400)
	var n int64
	for last := int64(-1); n != int64(3*sent); {
		last = n
		testutil.Eventually(t, fmt.Sprintf("%d packets stored (progress from %d)", 3*sent, last), func() bool {
			n = packets()
			return n >= int64(3*sent) || n > last
		})
		if n > int64(3*sent) {
			t.Fatalf("%d packets stored, want %d: some flows twice", n, 3*sent)
		}
	}
	consumer.stop(t)
	sensor.stop(t)
}
