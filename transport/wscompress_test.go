package transport_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/coder/websocket"
	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/stream"
	"github.com/fnapi/fnapi/transport"
)

// wireConn records what a client connection reads, to tell which messages came compressed.
type wireConn struct {
	net.Conn
	mu  sync.Mutex
	got bytes.Buffer
}

func (c *wireConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	c.got.Write(p[:n])
	c.mu.Unlock()
	return n, err
}

// wireMessage is a message as it went on the wire.
type wireMessage struct {
	compressed bool // RSV1 on its first frame: permessage-deflate
	bytes      int  // its frames, headers included
}

// messages reads the server's frames from what the connection read (after the handshake's
// answer) and returns its data messages.
func (c *wireConn) messages(t *testing.T) []wireMessage {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.got.Bytes()
	i := bytes.Index(b, []byte("\r\n\r\n"))
	if i < 0 {
		t.Fatal("no handshake answer")
	}
	b = b[i+4:]
	var msgs []wireMessage
	var cur *wireMessage
	for len(b) >= 2 {
		fin, rsv1, op := b[0]&0x80 != 0, b[0]&0x40 != 0, b[0]&0x0f
		n, h := int(b[1]&0x7f), 2
		switch n {
		case 126:
			n, h = int(binary.BigEndian.Uint16(b[2:])), 4
		case 127:
			n, h = int(binary.BigEndian.Uint64(b[2:])), 10
		}
		if len(b) < h+n {
			t.Fatalf("a frame cut short: %d bytes of %d", len(b), h+n)
		}
		if op == 1 || op == 2 {
			msgs = append(msgs, wireMessage{compressed: rsv1})
			cur = &msgs[len(msgs)-1]
		}
		if op < 8 && cur != nil { // data and continuation frames; control frames interleave
			cur.bytes += h + n
			if fin {
				cur = nil
			}
		}
		b = b[h+n:]
	}
	return msgs
}

// newCompressServer serves, over plain HTTP so that the test sees the frames: echo, text (a
// long answer), secret-text (the same, NoStore) and lines (a stream of long chunks).
func newCompressServer(t *testing.T, cfg transport.Config) *httptest.Server {
	reg := registry.New()
	fnapi.MustRegisterBuiltins(reg)
	pub := registry.Requires(decl.Public)
	text := func(in struct {
		N int `json:"n"`
	}) string {
		return strings.Repeat("traffic ", in.N)
	}
	reg.MustRegister("text", text, pub)
	reg.MustRegister("secret-text", text, pub, registry.NoStore())
	reg.MustRegister("lines", func(ctx context.Context, s *stream.Sender[string]) error {
		for range 3 {
			if err := s.Send(strings.Repeat("line ", 500)); err != nil {
				return err
			}
		}
		return nil
	}, pub)
	h, err := transport.New(reg, cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.StripPrefix("/api", h))
	t.Cleanup(srv.Close)
	return srv
}

// TestWSCompression: a client that offers permessage-deflate (with or without context takeover)
// gets long messages compressed, short ones and the answers of NoStore functions as they are,
// and its own compressed calls are read (by the fast path: plain call messages); a client that
// does not offer it, or a server with it turned off, gets every message as it is. Every answer
// is the same decoded, also when a burst of answers shares socket writes.
func TestWSCompression(t *testing.T) {
	t.Parallel()
	on := newCompressServer(t, transport.Config{})
	off := newCompressServer(t, transport.Config{WS: transport.WSConfig{CompressMinBytes: -1}})
	long := strings.Repeat("x", 3000)
	calls := []struct {
		msg      string
		answers  int
		compress bool // when negotiated
	}{
		{`{"id":1,"call":"echo","args":{"a":1}}`, 1, false},
		{`{"id":2,"call":"text","args":{"n":1000}}`, 1, true},
		{`{"id":3,"call":"secret-text","args":{"n":1000}}`, 1, false},
		{`{"id":4,"call":"echo","args":{"text":"` + long + `"}}`, 1, true}, // sent compressed too
		{`{"id":5,"stream":"lines","args":{}}`, 4, true},                   // 3 chunks, then a short end
	}
	tests := []struct {
		name       string
		srv        *httptest.Server
		mode       websocket.CompressionMode
		negotiated bool
	}{
		{"offered without takeover", on, websocket.CompressionNoContextTakeover, true},
		{"offered with takeover", on, websocket.CompressionContextTakeover, true},
		{"not offered", on, websocket.CompressionDisabled, false},
		{"turned off", off, websocket.CompressionNoContextTakeover, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var wire *wireConn
			hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
				wire = &wireConn{Conn: c}
				return wire, err
			}}}
			conn, res, err := websocket.Dial(t.Context(), "ws"+strings.TrimPrefix(tt.srv.URL, "http")+"/api/ws",
				&websocket.DialOptions{HTTPClient: hc, CompressionMode: tt.mode, CompressionThreshold: 512})
			if err != nil {
				t.Fatal(err)
			}
			defer conn.CloseNow()
			conn.SetReadLimit(-1)
			ext := res.Header.Get("Sec-WebSocket-Extensions")
			if want := "permessage-deflate; client_no_context_takeover; server_no_context_takeover"; tt.negotiated != (ext == want) {
				t.Fatalf("Sec-WebSocket-Extensions %q", ext)
			}
			var want []bool
			for _, c := range calls {
				sendMsg(t, conn, c.msg)
				for i := range c.answers {
					m := readMsg(t, conn)
					if r, _ := m["result"].(string); m["type"] == "error" || strings.Contains(c.msg, `text","args":{"n"`) && len(r) != 8000 {
						t.Fatalf("%.60s: answered %.80v", c.msg, m)
					}
					last := i == c.answers-1 && c.answers > 1 // a stream's end
					want = append(want, tt.negotiated && c.compress && !last)
				}
			}
			// A burst: the answers share socket writes (wswrite.go's batches), compressed each.
			for i := range 20 {
				sendMsg(t, conn, fmt.Sprintf(`{"id":"b%d","call":"text","args":{"n":%d}}`, i, 200+i))
			}
			for range 20 {
				m := readMsg(t, conn)
				id, _ := m["id"].(string)
				if r, _ := m["result"].(string); len(id) < 2 || len(r) != 8*(200+atoi(t, id[1:])) {
					t.Fatalf("burst answer %.80v", m)
				}
				want = append(want, tt.negotiated)
			}
			got := wire.messages(t)
			if len(got) != len(want) {
				t.Fatalf("%d messages on the wire, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i].compressed != want[i] {
					t.Errorf("message %d: compressed %v, want %v (%d bytes)", i, got[i].compressed, want[i], got[i].bytes)
				}
			}
		})
	}
}
