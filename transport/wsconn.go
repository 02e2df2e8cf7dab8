package transport

import (
	"context"
	"errors"
	"fmt"
	"github.com/fnapi/fnapi/internal/bufpool"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/transport/internal/wsmessage"
	"github.com/fnapi/fnapi/version"
)

// wsConn is one WebSocket connection. Its goroutines:
//   - serve, started by the handshake's handler (which then returns to net/http), reads the
//     messages and dispatches the calls;
//   - workers (wsworker.go) run the calls, at most WSConfig.MaxInFlight at once, each reused
//     for the next call and ended after wsWorkerIdle without one or with the connection;
//   - await, one per call that waits for a slot while every slot is taken (at most as many as
//     there are slots), so that the read loop goes on reading;
//   - the writer's drain (wswrite.go), one while messages are queued: calls queue their
//     messages and return, and drain writes them in batches;
//   - the pinger and the read loop's idle timer are time.AfterFunc timers: each runs in a
//     goroutine of its own only when it fires.
//
// A slow call therefore never holds up another one's work, and a client that stops reading
// holds up the senders only once wsQueueBytes are queued.
type wsConn struct {
	h      *Handler
	conn   *websocket.Conn
	out    *wsWriter       // the queue of outgoing messages
	ctx    context.Context // the connection's root context: done when it closes
	cancel context.CancelFunc
	v      version.Version
	creds  registry.Credentials // the handshake's tokens
	header http.Header
	remote string

	slots   chan struct{}  // one per call in flight
	waiting chan struct{}  // one per call waiting for a slot
	wg      sync.WaitGroup // the calls running and waiting

	jobs        chan wsJob    // calls for claimed waiting workers (see wsworker.go)
	quit        chan struct{} // closed when no call will be dispatched any more
	workersMu   sync.Mutex
	idleWorkers int // waiting for a call and not yet claimed

	mu      sync.Mutex
	calls   map[string]*wsRunning // by id, the calls still running or waiting for a slot
	closing bool                  // shutting down: new calls are refused

	done chan struct{} // closed when the connection has ended

	reading atomic.Bool  // the read loop waits for a message (so a pong would be read)
	reads   atomic.Int64 // messages read, to tell a dead peer from a busy reader
	pinger  *time.Timer
}

// wsRunning is a call in flight.
type wsRunning struct {
	cancel    context.CancelFunc
	cancelled atomic.Bool // by the cancel function, not by a timeout or the connection closing
	shutdown  atomic.Bool // by the server's shutdown
}

func (h *Handler) newWSConn(conn *websocket.Conn, nc *batchConn, plainMin int, r *http.Request, v version.Version, creds registry.Credentials) *wsConn {
	ctx, cancel := context.WithCancel(context.Background()) // the request's context ends with the handshake
	wc := &wsConn{
		h: h, conn: conn, ctx: ctx, cancel: cancel, v: v, creds: creds,
		header: r.Header, remote: r.RemoteAddr,
		slots: make(chan struct{}, h.cfg.WS.MaxInFlight),
		jobs:  make(chan wsJob), // unbuffered: a buffer of MaxInFlight jobs costs 3.5 KB per connection
		quit:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	wc.out = newWSWriter(conn, nc, plainMin, func(error) {
		// A failed write (a client that does not read within the write timeout, or gone)
		// closes the connection: its calls are cancelled.
		wc.cancel()
		_ = conn.CloseNow()
	})
	return wc
}

// serve reads calls until the connection closes, then cancels the calls still running and
// waits for them.
func (wc *wsConn) serve() {
	defer close(wc.done)
	defer wc.h.removeConn(wc)
	if m := wc.h.cfg.Metrics; m != nil {
		m.connection(1)
		defer m.connection(-1)
	}
	wc.pinger = time.AfterFunc(wc.h.cfg.WS.PingInterval, wc.ping)
	err := wc.readLoop()
	wc.pinger.Stop()
	wc.cancel()
	wc.wg.Wait()
	close(wc.quit)
	wc.out.wait() // the answers of the calls that ended
	wc.out.close()
	switch {
	case errors.Is(err, errWSIdle):
		// Closed by the idle timer.
	case errors.Is(err, websocket.ErrMessageTooBig):
		// The close frame (1009) is sent; wait a little for the peer's, draining what it sends.
		_ = wc.conn.Close(websocket.StatusMessageTooBig, "")
	case websocket.CloseStatus(err) != -1:
		// The peer closed: the library has answered.
	default:
		_ = wc.conn.CloseNow()
	}
}

var errWSIdle = errors.New("transport: idle connection")

// readLoop reads messages and starts their calls. It never stops for calls that run: past
// MaxInFlight they wait, and past as many waiting they are refused (see dispatch), so that the
// connection always sees a close, a ping, a cancel or a dead peer.
func (wc *wsConn) readLoop() error {
	idle := wc.h.cfg.WS.IdleTimeout
	var idled atomic.Bool
	for {
		var timer *time.Timer
		if idle > 0 && len(wc.slots) == 0 {
			timer = time.AfterFunc(idle, func() {
				idled.Store(true)
				wc.out.wait()
				_ = wc.conn.Close(websocket.StatusNormalClosure, "idle")
			})
		}
		wc.reading.Store(true)
		// No deadline nor cancellation in the context: the library would arm a timer for each
		// message. Whatever ends the connection (a failed write, a dead peer, the idle timer, a
		// shutdown) closes it, which ends the Read.
		_, data, err := wc.conn.Read(context.Background())
		wc.reading.Store(false)
		wc.reads.Add(1)
		if timer != nil {
			timer.Stop()
		}
		if err != nil {
			if idled.Load() {
				return errWSIdle
			}
			return err
		}
		if err := wc.dispatch(data); err != nil {
			return err
		}
	}
}

// dispatch starts the call a message holds, or answers why it cannot. It returns an error only
// when the connection is done.
func (wc *wsConn) dispatch(data []byte) error {
	m, err := wsmessage.Parse(data)
	if err != nil {
		return wc.refuse(m.ID, err)
	}
	f := wc.h.reg.Lookup(wc.v, m.Name)
	if f == nil {
		return wc.refuse(m.ID, apierr.New(apierr.UnknownFunction, "path", m.Name))
	}
	c, err := wc.newCall(f, m)
	if err != nil {
		return wc.refuse(m.ID, err)
	}
	ctx, cancel := wc.callContext(c)
	if f.Name == cancelFunction && !m.Stream {
		// cancel runs at once and takes no slot, so that a client at the limit can still cancel.
		wc.run(ctx, c, nil)
		cancel()
		return nil
	}
	wc.mu.Lock()
	if _, dup := wc.calls[m.ID]; dup {
		wc.mu.Unlock()
		cancel()
		return wc.refuse(m.ID, apierr.New(apierr.DuplicateID))
	}
	if wc.closing {
		wc.mu.Unlock()
		cancel()
		return wc.refuse(m.ID, errShuttingDown())
	}
	run := &wsRunning{cancel: cancel}
	j := wsJob{ctx: ctx, cancel: cancel, c: c, run: run}
	if wc.calls == nil {
		wc.calls = make(map[string]*wsRunning)
	}
	wc.calls[m.ID] = run
	wc.wg.Add(1)
	wc.mu.Unlock()
	select {
	case wc.slots <- struct{}{}:
		wc.start(j)
		return nil
	default:
	}
	// Every slot is taken: the call waits for one in a goroutine of its own, so that the
	// connection reads on (close frames, pings, cancel).
	if !wc.enqueue() {
		wc.release(m.ID)
		cancel()
		wc.wg.Done()
		return wc.refuse(m.ID, apierr.New(apierr.RateLimited, "retry_after", 1, "reason",
			fmt.Sprintf("%d calls running and %d waiting on this connection", cap(wc.slots), cap(wc.waiting))))
	}
	go wc.await(j)
	return nil
}

// wsQueueWait is how long the read loop waits for room among the waiting calls before it
// refuses a call: a burst of quick calls waits its turn, while a connection whose slots are
// held by long calls goes on reading.
const wsQueueWait = time.Second

// enqueue takes a place among the waiting calls, waiting at most wsQueueWait for one. Only the
// read loop calls it; the places are made the first time (most connections never need them).
func (wc *wsConn) enqueue() bool {
	if wc.waiting == nil {
		wc.waiting = make(chan struct{}, cap(wc.slots))
	}
	select {
	case wc.waiting <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(wsQueueWait)
	defer t.Stop()
	select {
	case wc.waiting <- struct{}{}:
		return true
	case <-t.C:
	case <-wc.ctx.Done():
	}
	return false
}

// await starts j once a slot is free, or answers its end if it ends first (cancelled, timed
// out, the connection closed or shut down).
func (wc *wsConn) await(j wsJob) {
	select {
	case wc.slots <- struct{}{}:
		<-wc.waiting
		wc.start(j)
		return
	case <-j.ctx.Done():
	}
	<-wc.waiting
	err := j.ctx.Err()
	switch {
	case j.run.cancelled.Load():
		err = apierr.New(apierr.Cancelled)
	case j.run.shutdown.Load():
		err = errShuttingDown()
	}
	wc.release(j.c.ID())
	j.cancel()
	_ = wc.refuse(j.c.ID(), err)
	wc.wg.Done()
}

// cancelFunction names the built-in function that cancels a call of the same connection.
const cancelFunction = "cancel"

// refuse answers an error for a message that started no call.
func (wc *wsConn) refuse(id string, err error) error {
	b := bufpool.Get()
	appendError(b, id, apierr.From(err))
	return wc.out.send(b, false)
}

// release removes a finished call from the running calls, before its last message is written:
// a client may reuse the id as soon as it has read that message.
func (wc *wsConn) release(id string) {
	wc.mu.Lock()
	delete(wc.calls, id)
	wc.mu.Unlock()
}

// cancelCall cancels the running call with that id.
func (wc *wsConn) cancelCall(id string) bool {
	wc.mu.Lock()
	run := wc.calls[id]
	wc.mu.Unlock()
	if run == nil {
		return false
	}
	run.cancelled.Store(true)
	run.cancel()
	return true
}

// ping checks that an idle peer is alive. A busy reader is not pinged: it would not read the
// pong, and writes with their timeout watch over busy connections.
func (wc *wsConn) ping() {
	if wc.ctx.Err() != nil {
		return
	}
	if wc.reading.Load() {
		before := wc.reads.Load()
		ctx, cancel := context.WithTimeout(wc.ctx, wc.h.cfg.WS.WriteTimeout)
		err := wc.conn.Ping(ctx)
		cancel()
		if err != nil && wc.reading.Load() && wc.reads.Load() == before {
			wc.cancel() // the reader waited all along and no pong came: a dead peer
			_ = wc.conn.CloseNow()
			return
		}
	}
	wc.pinger.Reset(wc.h.cfg.WS.PingInterval)
}
