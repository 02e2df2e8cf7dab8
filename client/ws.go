package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/coder/websocket"
)

// WSConn is one multiplexed WebSocket connection to an fnapi server: its calls run
// concurrently. It is safe for concurrent use.
type WSConn struct {
	conn *websocket.Conn
	ids  atomic.Uint64

	mu      sync.Mutex
	pending map[string]*pending
	err     error         // why the connection ended, once done is closed
	done    chan struct{} // closed when the reader stops

	versions versions // the connections to other versions, for typed calls WithDeclaredVersions
}

// pending is a call waiting for its messages.
type pending struct {
	ch   chan message  // the call's messages, in order
	gone chan struct{} // closed when the caller stopped waiting
}

// streamBuffer is how many chunks of one stream wait for its consumer.
const streamBuffer = 256

// DialWS opens a WebSocket to wsURL ("wss://example.net/api/ws", or /api/1.0/ws for a version).
// The tokens given by WithSession and WithAPIKey go with the handshake and apply to every call.
func DialWS(ctx context.Context, wsURL string, opts ...Option) (*WSConn, error) {
	u, err := url.Parse(wsURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("client: WebSocket URL %q: want wss://host/path", wsURL)
	}
	o := newOptions(opts)
	return dialWS(ctx, u, o)
}

func dialWS(ctx context.Context, u *url.URL, o options) (*WSConn, error) {
	conn, res, err := websocket.Dial(ctx, u.String(), &websocket.DialOptions{
		HTTPClient: o.hc, HTTPHeader: o.header(),
		// permessage-deflate, so that the server may compress its long answers; without context
		// takeover (no compressor kept per connection), and what the client sends goes as it
		// is: a call may put a token or a password next to other text (BREACH).
		CompressionMode:      websocket.CompressionNoContextTakeover,
		CompressionThreshold: math.MaxInt,
	})
	if err != nil {
		return nil, handshakeErr(res, err)
	}
	conn.SetReadLimit(o.maxMsg)
	c := &WSConn{conn: conn, pending: make(map[string]*pending), done: make(chan struct{})}
	c.versions.init(u, o)
	go c.read()
	return c, nil
}

// handshakeErr returns the server's error message when it refused the handshake with one
// (UNKNOWN-VERSION for a version it does not serve), else err.
func handshakeErr(res *http.Response, err error) error {
	if res != nil && res.Body != nil {
		if b, rerr := io.ReadAll(res.Body); rerr == nil {
			if m, derr := decodeMessage(b); derr == nil && m.Type == "error" {
				return m.err()
			}
		}
	}
	return fmt.Errorf("client: %w", err)
}

// Close closes the connection, and those WithDeclaredVersions opened; the server cancels the
// calls still running.
func (c *WSConn) Close() error {
	errs := c.versions.close()
	err := c.conn.Close(websocket.StatusNormalClosure, "")
	<-c.done
	if err != nil && !errors.Is(err, context.Canceled) {
		errs = append(errs, fmt.Errorf("client: %w", err))
	}
	return errors.Join(errs...)
}

// read dispatches the server's messages to their calls, until the connection ends.
func (c *WSConn) read() {
	var err error
	for {
		var b []byte
		_, b, err = c.conn.Read(context.Background())
		if err != nil {
			break
		}
		m, derr := decodeMessage(b)
		if derr != nil || m.ID == "" {
			continue // nothing to answer: not a message for one of our calls
		}
		c.mu.Lock()
		p := c.pending[m.ID]
		if m.Type != "chunk" {
			delete(c.pending, m.ID) // the call's last message
		}
		c.mu.Unlock()
		if p == nil {
			continue
		}
		select {
		case p.ch <- m:
		case <-p.gone:
		}
	}
	c.mu.Lock()
	c.err = fmt.Errorf("client: the WebSocket connection ended: %w", err)
	c.mu.Unlock()
	close(c.done)
}

// wsCall is a call message.
type wsCall struct {
	ID     string          `json:"id"`
	Call   string          `json:"call,omitempty"`
	Stream string          `json:"stream,omitempty"`
	Args   json.RawMessage `json:"args"`
}

// start sends a call message and registers its id.
func (c *WSConn) start(ctx context.Context, kind, fn string, args any, buffer int) (string, *pending, error) {
	a, err := encodeArgs(args)
	if err != nil {
		return "", nil, err
	}
	id := strconv.FormatUint(c.ids.Add(1), 10)
	call := wsCall{ID: id, Args: a}
	if kind == "stream" {
		call.Stream = fn
	} else {
		call.Call = fn
	}
	msg, err := json.Marshal(call)
	if err != nil {
		return "", nil, fmt.Errorf("client: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return "", nil, err
	}
	p := &pending{ch: make(chan message, buffer), gone: make(chan struct{})}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return "", nil, c.err
	}
	c.pending[id] = p
	c.mu.Unlock()
	if err := c.write(ctx, id, msg); err != nil {
		c.forget(id, p)
		return "", nil, err
	}
	return id, p, nil
}

// write sends the call message of call id. The library closes the whole connection when the
// context of a write is done while it writes, and the connection carries every call: so the
// message is written without ctx's cancellation. When ctx is done first (a server at its
// in-flight limit reads no more), write returns ctx's error at once and the call, once its
// message is out, is cancelled on the server.
func (c *WSConn) write(ctx context.Context, id string, msg []byte) error {
	if ctx.Done() == nil {
		return wsWriteErr(c.conn.Write(ctx, websocket.MessageText, msg))
	}
	done := make(chan error, 1)
	go func() { done <- c.conn.Write(context.WithoutCancel(ctx), websocket.MessageText, msg) }()
	select {
	case err := <-done:
		return wsWriteErr(err)
	case <-ctx.Done():
		go func() {
			if <-done == nil {
				c.cancel(id)
			}
		}()
		return ctx.Err()
	}
}

func wsWriteErr(err error) error {
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}
	return nil
}

// forget stops waiting for a call's messages.
func (c *WSConn) forget(id string, p *pending) {
	close(p.gone)
	c.mu.Lock()
	if c.pending[id] == p {
		delete(c.pending, id)
	}
	c.mu.Unlock()
}

// cancel asks the server to cancel the call id, without waiting for the answer.
func (c *WSConn) cancel(id string) {
	msg := fmt.Sprintf(`{"id":"cancel-%s","call":"cancel","args":{"id":%q}}`, id, id)
	go func() { _ = c.conn.Write(context.Background(), websocket.MessageText, []byte(msg)) }()
}

// next waits for the call's next message. When ctx is done first it cancels the call on the
// server and returns ctx's error.
func (c *WSConn) next(ctx context.Context, id string, p *pending) (message, error) {
	select {
	case m := <-p.ch:
		return m, nil
	case <-ctx.Done():
		c.forget(id, p)
		c.cancel(id)
		return message{}, ctx.Err()
	case <-c.done:
		select { // a message that arrived just before the end
		case m := <-p.ch:
			return m, nil
		default:
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		return message{}, c.err
	}
}

// Call calls fn with args and stores its result in out (nil to drop it). Cancelling ctx
// cancels the call on the server. An error answered by the server is an *apierr.Error.
func (c *WSConn) Call(ctx context.Context, fn string, args any, out any) error {
	return c.call(ctx, fn, "", args, out)
}

// call calls fn at version v: on this connection when v is "" or the connection's version,
// else on the connection to v.
// callReadOnly is call: a WebSocket has no conditional reads.
func (c *WSConn) callReadOnly(ctx context.Context, fn, v string, args any, out any) error {
	return c.call(ctx, fn, v, args, out)
}

func (c *WSConn) call(ctx context.Context, fn, v string, args any, out any) error {
	if v != "" && v != c.versions.own {
		conn, err := c.versions.at(ctx, v)
		if err != nil {
			return err
		}
		return conn.Call(ctx, fn, args, out)
	}
	id, p, err := c.start(ctx, "call", fn, args, 1)
	if err != nil {
		return err
	}
	m, err := c.next(ctx, id, p)
	if err != nil {
		return err
	}
	return m.result(out)
}

// Stream calls fn in streaming mode and returns its chunks in order. A failure is yielded
// last, as a nil chunk and an error (an *apierr.Error when the server answered one). Stopping
// the iteration, or cancelling ctx, cancels the call on the server.
func (c *WSConn) Stream(ctx context.Context, fn string, args any) iter.Seq2[json.RawMessage, error] {
	return c.stream(ctx, fn, "", args)
}

// stream is Stream at version v, as call is Call.
func (c *WSConn) stream(ctx context.Context, fn, v string, args any) iter.Seq2[json.RawMessage, error] {
	if v != "" && v != c.versions.own {
		return func(yield func(json.RawMessage, error) bool) {
			conn, err := c.versions.at(ctx, v)
			if err != nil {
				yield(nil, err)
				return
			}
			conn.Stream(ctx, fn, args)(yield)
		}
	}
	return func(yield func(json.RawMessage, error) bool) {
		id, p, err := c.start(ctx, "stream", fn, args, streamBuffer)
		if err != nil {
			yield(nil, err)
			return
		}
		for {
			m, err := c.next(ctx, id, p)
			if err != nil {
				yield(nil, err)
				return
			}
			switch m.Type {
			case "chunk":
				if !yield(m.Chunk, nil) {
					c.forget(id, p)
					c.cancel(id)
					return
				}
			case "end":
				return
			case "error":
				yield(nil, m.err())
				return
			default:
				yield(nil, fmt.Errorf("client: unexpected %q message in a stream", m.Type))
				return
			}
		}
	}
}
