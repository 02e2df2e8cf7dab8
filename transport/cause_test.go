package transport_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/transport"
)

// endWithCause is an interceptor that ends every stream 50 ms after it starts, with an error of
// the catalogue as the context's cause, as auth does when a stream's token ends.
func endWithCause(next registry.Handler) registry.Handler {
	return func(ctx context.Context, c *registry.Call) (any, error) {
		if c.Sink() == nil {
			return next(ctx, c)
		}
		ctx, cancel := context.WithCancelCause(ctx)
		t := time.AfterFunc(50*time.Millisecond, func() { cancel(apierr.New(ended, "path", c.Func.Name)) })
		defer t.Stop()
		return next(ctx, c)
	}
}

var ended = apierr.Declare("ENDED", 400, "The stream's token ended.", apierr.Attr("path", "the function"))

// TestStreamEndsWithCause checks that a stream whose context an interceptor cancelled with an
// error as the cause ends with that error, over HTTP and WebSocket, though the function
// itself returns nothing.
func TestStreamEndsWithCause(t *testing.T) {
	t.Parallel()
	srv, _ := newStreamServer(t, transport.Config{Interceptors: []registry.Interceptor{endWithCause}})
	_, _, msgs := readStream(t, srv.Client(), srv.URL+"/api/stream/forever?tag=x", false)
	if last := msgs[len(msgs)-1]; !strings.Contains(last, `"error":"ENDED"`) || !strings.Contains(last, `"path":"forever"`) {
		t.Fatalf("HTTP stream ended with %s", last)
	}
	conn := dialWS(t, srv, "/api/ws", nil)
	sendMsg(t, conn, `{"id":"s","stream":"forever","args":{"tag":"x"}}`)
	for {
		m := readMsg(t, conn)
		if m["type"] == "chunk" {
			continue
		}
		if m["id"] != "s" || m["error"] != "ENDED" {
			t.Fatalf("WebSocket stream ended with %v", m)
		}
		break
	}
	// A call that returns an error of its own keeps it.
	if m := call(t, conn, `{"id":"c","call":"add","args":{"a":"x","b":1}}`); m["error"] != "INVALID-ARGUMENT" {
		t.Fatalf("plain call: %v", m)
	}
}
