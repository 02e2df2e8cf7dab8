package client_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/client"
)

// cutter forwards TCP connections to a server and can cut them all, as a node that dies does.
type cutter struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newCutter(t *testing.T, target string) *cutter {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &cutter{ln: ln}
	t.Cleanup(func() { ln.Close(); c.cut() })
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				in.Close()
				continue
			}
			c.mu.Lock()
			c.conns = append(c.conns, in, out)
			c.mu.Unlock()
			go func() { io.Copy(out, in); out.Close() }()
			go func() { io.Copy(in, out); in.Close() }()
		}
	}()
	return c
}

func (c *cutter) cut() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, conn := range c.conns {
		conn.Close()
	}
	c.conns = nil
}

func TestFollowWSGoesOnAfterTheConnectionEnds(t *testing.T) {
	t.Parallel()
	srv, _, _ := testServer(t)
	proxy := newCutter(t, srv.Listener.Addr().String())
	url := "wss://" + proxy.ln.Addr().String() + "/api/ws"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var restarts, seen int
	for chunk, err := range client.FollowWS(ctx, url, "count", map[string]int{"n": 1 << 30}, client.WithHTTPClient(srv.Client())) {
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if err := json.Unmarshal(chunk, &n); err != nil {
			t.Fatal(err)
		}
		seen++
		if n == 0 && seen > 1 {
			restarts++ // the call started again on a new connection
		}
		if n == 100 && restarts == 0 {
			proxy.cut()
		}
		if restarts == 1 && n == 100 {
			break
		}
	}
	if restarts != 1 {
		t.Fatalf("%d restarts", restarts)
	}
}

func TestFollowWSStopsAtAnErrorAnswered(t *testing.T) {
	t.Parallel()
	srv, _, _ := testServer(t)
	url := "wss" + strings.TrimPrefix(srv.URL, "https") + "/api/ws"
	var chunks int
	var last error
	for _, err := range client.FollowWS(context.Background(), url, "count", map[string]any{"n": 2, "fail": "BAD"}, client.WithHTTPClient(srv.Client())) {
		if err != nil {
			last = err
			continue
		}
		chunks++
	}
	if chunks != 2 || apierr.CodeOf(last) != "BAD" {
		t.Fatalf("%d chunks, then %v", chunks, last)
	}
	for _, err := range client.FollowWS(context.Background(), "not a URL", "count", nil) {
		if err == nil || !strings.Contains(err.Error(), "want wss://") {
			t.Fatalf("bad URL: %v", err)
		}
	}
}
