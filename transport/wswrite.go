package transport

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"github.com/fnapi/fnapi/internal/bufpool"
	"net"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// A WebSocket connection's messages go out through a queue: a call (or a stream's Send) queues
// its message and returns; one goroutine writes everything queued, as it comes, and the
// connection's socket is written once per batch instead of once per message (one TLS record
// and one system call for many messages). A lone message is written at once: nothing waits
// for a batch to fill.

// wsQueueBytes bounds the bytes queued on one connection; past it, senders wait for the writer
// (which itself waits at most WSConfig.WriteTimeout for a client that does not read).
const wsQueueBytes = 256 << 10

// wsWriter is the outgoing queue of one connection.
type wsWriter struct {
	conn *websocket.Conn
	nc   *batchConn
	fail func(error) // called once when a write failed: closes the connection

	plainMin int // with permessage-deflate, the size from which plain messages need writePlain

	mu      sync.Mutex
	space   sync.Cond // signalled when the queue shrank or the writer failed
	idle    sync.Cond // signalled when the writer stopped with nothing queued
	queue   []wsOut
	spare   []wsOut
	queued  int
	running bool
	err     error
}

// wsOut is a queued message. A plain one is never compressed: it puts a secret next to text
// the caller chose (see wscompress.go).
type wsOut struct {
	b     *bytes.Buffer
	plain bool
}

func newWSWriter(conn *websocket.Conn, nc *batchConn, plainMin int, fail func(error)) *wsWriter {
	w := &wsWriter{conn: conn, nc: nc, plainMin: plainMin, fail: fail}
	w.space.L = &w.mu
	w.idle.L = &w.mu
	return w
}

var errWSClosed = errors.New("transport: the WebSocket connection is closed")

// send queues b, a message, and takes it over (it goes back to the buffer pool once written);
// plain keeps it uncompressed. It waits while the queue is full, and fails once a write failed.
func (w *wsWriter) send(b *bytes.Buffer, plain bool) error {
	w.mu.Lock()
	for w.err == nil && w.queued >= wsQueueBytes {
		w.space.Wait()
	}
	if err := w.err; err != nil {
		w.mu.Unlock()
		bufpool.Put(b)
		return err
	}
	w.queue = append(w.queue, wsOut{b, plain})
	w.queued += b.Len()
	start := !w.running
	w.running = true
	w.mu.Unlock()
	if start {
		go w.drain()
	}
	return nil
}

// drain writes what is queued, batch after batch, until the queue is empty.
func (w *wsWriter) drain() {
	for {
		w.mu.Lock()
		if len(w.queue) == 1 {
			// Let the goroutines that are ready run first (calls about to answer, the read
			// loop): their messages join this batch. With nothing else ready, this returns at
			// once.
			w.mu.Unlock()
			runtime.Gosched()
			w.mu.Lock()
		}
		if len(w.queue) == 0 || w.err != nil {
			w.running = false
			for _, m := range w.queue {
				bufpool.Put(m.b)
			}
			w.queue, w.queued = w.queue[:0], 0
			w.idle.Broadcast()
			w.mu.Unlock()
			return
		}
		batch := w.queue
		w.queue, w.spare = w.spare[:0], nil
		w.queued = 0
		w.space.Broadcast()
		w.mu.Unlock()

		err := w.writeBatch(batch)
		for i, m := range batch {
			bufpool.Put(m.b)
			batch[i] = wsOut{}
		}
		w.mu.Lock()
		w.spare = batch[:0]
		if err != nil && w.err == nil {
			w.err = err
			w.space.Broadcast()
		}
		w.mu.Unlock()
		if err != nil {
			w.fail(err)
		}
	}
}

// writeBatch writes the messages of a batch, letting the socket write only with the last one.
func (w *wsWriter) writeBatch(batch []wsOut) error {
	w.nc.hold.Store(len(batch) > 1)
	defer w.nc.hold.Store(false)
	for i, m := range batch {
		if i == len(batch)-1 {
			w.nc.hold.Store(false)
		}
		// No deadline in the context: batchConn bounds each socket write by WriteTimeout,
		// which spares the library a timer per message.
		var err error
		if m.plain && w.plainMin > 0 && m.b.Len() >= w.plainMin {
			err = writePlain(w.conn, m.b.Bytes())
		} else {
			err = w.conn.Write(context.Background(), websocket.MessageText, m.b.Bytes())
		}
		if err != nil {
			return err
		}
	}
	return w.nc.flush()
}

// close makes every later send fail.
func (w *wsWriter) close() {
	w.mu.Lock()
	if w.err == nil {
		w.err = errWSClosed
	}
	w.space.Broadcast()
	w.mu.Unlock()
}

// wait returns once everything queued has been written (or the writer failed).
func (w *wsWriter) wait() {
	w.mu.Lock()
	for w.running {
		w.idle.Wait()
	}
	w.mu.Unlock()
}

// batchConn is the hijacked connection under a WebSocket. While hold is set, writes gather in a
// buffer; the first write with hold clear sends all that gathered with it, in one write of the
// underlying connection. Each underlying write is bounded by the write timeout.
type batchConn struct {
	net.Conn
	timeout time.Duration
	hold    atomic.Bool

	mu       sync.Mutex
	buf      []byte
	deadline time.Time // the write deadline set last
}

// batchMax is the most a batchConn gathers before writing anyway.
const batchMax = 64 << 10

func (c *batchConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.hold.Load() && len(c.buf)+len(p) <= batchMax {
		if c.buf == nil {
			c.buf = getBatchBuf()
		}
		c.buf = append(c.buf, p...)
		return len(p), nil
	}
	if len(c.buf) == 0 {
		return c.writeLocked(p)
	}
	c.buf = append(c.buf, p...)
	if _, err := c.flushLocked(); err != nil {
		return 0, err
	}
	return len(p), nil
}

// flush writes what gathered.
func (c *batchConn) flush() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := c.flushLocked()
	return err
}

func (c *batchConn) flushLocked() (int, error) {
	if len(c.buf) == 0 {
		return 0, nil
	}
	n, err := c.writeLocked(c.buf)
	putBatchBuf(c.buf)
	c.buf = nil
	return n, err
}

// writeLocked writes p to the connection within the write timeout. The deadline is moved only
// when less than half the timeout is left, which spares a timer update per write.
func (c *batchConn) writeLocked(p []byte) (int, error) {
	now := time.Now()
	if c.deadline.Sub(now) < c.timeout/2 {
		c.deadline = now.Add(c.timeout)
		if err := c.Conn.SetWriteDeadline(c.deadline); err != nil {
			return 0, err
		}
	}
	return c.Conn.Write(p)
}

var batchPool = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

func getBatchBuf() []byte { return (*batchPool.Get().(*[]byte))[:0] }

func putBatchBuf(b []byte) {
	if cap(b) <= batchMax*2 {
		batchPool.Put(&b)
	}
}

// hijackWriter lets [websocket.Accept] hijack the connection wrapped in a batchConn.
type hijackWriter struct {
	http.ResponseWriter
	timeout time.Duration
	conn    *batchConn
}

func (w *hijackWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	nc, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	w.conn = &batchConn{Conn: nc, timeout: w.timeout}
	// The library writes each frame through this buffer, flushing it once per message; a
	// small one will do, as batchConn gathers the messages of a batch.
	brw.Writer = bufio.NewWriterSize(w.conn, 512)
	return w.conn, brw, nil
}
