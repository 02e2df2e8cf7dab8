package transport

import (
	"bytes"
	"compress/flate"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/coder/websocket"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
)

// countConn counts the bytes a client connection reads.
type countConn struct {
	net.Conn
	n *atomic.Int64
}

func (c countConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// BenchmarkWSCompress calls echo, rows (the first n groups of a query answer) and query (a
// 2,000-group answer) over one WebSocket, one call at a time: without permessage-deflate, with
// it as served (no context takeover, from 1 KiB), with it for every message, and with context
// takeover for every message, reporting the bytes the client read per call. The time per call
// includes the server's compression and the client's decompression, both in this process.
func BenchmarkWSCompress(b *testing.B) {
	answer := queryAnswer()
	rows := answer["data"].([]any)
	reg := registry.New()
	pub := registry.Requires(decl.Public)
	reg.MustRegister("echo", func(args map[string]any) map[string]any { return args }, pub)
	reg.MustRegister("rows", func(in struct {
		N int `json:"n"`
	}) any {
		return map[string]any{"data": rows[:in.N], "meta": answer["meta"]}
	}, pub)
	reg.MustRegister("query", func() any { return answer }, pub)
	modes := []struct {
		name string
		mode websocket.CompressionMode
		min  int
	}{
		{"plain", websocket.CompressionDisabled, -1},
		{"deflate", websocket.CompressionNoContextTakeover, 0},
		{"deflate-all", websocket.CompressionNoContextTakeover, 1},
		{"takeover-all", websocket.CompressionContextTakeover, 1},
	}
	calls := []struct{ name, call string }{
		{"echo", `"call":"echo","args":{"a":1,"text":"hello"}}`},
		{"rows-4", `"call":"rows","args":{"n":4}}`},
		{"rows-16", `"call":"rows","args":{"n":16}}`},
		{"rows-64", `"call":"rows","args":{"n":64}}`},
		{"query", `"call":"query","args":{}}`},
	}
	for _, m := range modes {
		wsCompression = m.mode
		h, err := New(reg, Config{WS: WSConfig{CompressMinBytes: m.min}})
		if err != nil {
			b.Fatal(err)
		}
		srv := httptest.NewServer(h)
		for _, c := range calls {
			b.Run(c.name+"/"+m.name, func(b *testing.B) {
				var read atomic.Int64
				hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
					c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
					return countConn{c, &read}, err
				}}}
				conn, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http")+"/ws",
					&websocket.DialOptions{HTTPClient: hc, CompressionMode: m.mode})
				if err != nil {
					b.Fatal(err)
				}
				defer conn.CloseNow()
				conn.SetReadLimit(-1)
				read.Store(0)
				msg := []byte(nil)
				for i := 0; b.Loop(); i++ {
					msg = append(append(strconv.AppendInt(append(msg[:0], `{"id":`...), int64(i), 10), ','), c.call...)
					if err := conn.Write(context.Background(), websocket.MessageText, msg); err != nil {
						b.Fatal(err)
					}
					if _, answer, err := conn.Read(context.Background()); err != nil || !bytes.Contains(answer, []byte(`"type":"result"`)) {
						b.Fatalf("%.60s, %v", answer, err)
					}
				}
				b.ReportMetric(float64(read.Load())/float64(b.N), "bytes/call")
			})
		}
		srv.Close()
	}
	wsCompression = websocket.CompressionNoContextTakeover
}

// BenchmarkDeflateMessage compresses one message of a query answer's first n groups the way
// permessage-deflate without context takeover does (a pooled compressor at BestSpeed, reset,
// then a sync flush), reporting the bytes in and out: the server's CPU per message, without the
// network's noise.
func BenchmarkDeflateMessage(b *testing.B) {
	answer := queryAnswer()
	rows := answer["data"].([]any)
	for _, n := range []int{1, 4, 16, 64, 2000} {
		buf := new(bytes.Buffer)
		if err := appendResult(buf, map[string]any{"data": rows[:n], "meta": answer["meta"]}); err != nil {
			b.Fatal(err)
		}
		msg := buf.Bytes()
		b.Run("rows-"+strconv.Itoa(n), func(b *testing.B) {
			var out bytes.Buffer
			for b.Loop() {
				out.Reset()
				fw := flateWriters.Get().(*flate.Writer)
				fw.Reset(&out)
				_, _ = fw.Write(msg)
				_ = fw.Flush()
				flateWriters.Put(fw)
			}
			b.ReportMetric(float64(len(msg)), "bytes-in")
			b.ReportMetric(float64(out.Len()-4), "bytes-out") // the sync flush's 00 00 ff ff is not sent
		})
	}
}
