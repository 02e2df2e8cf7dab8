package transport

import (
	"bytes"
	"context"
	"errors"
	"github.com/fnapi/fnapi/internal/bufpool"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/internal/calllink"
	"github.com/fnapi/fnapi/internal/jsonobject"
	"github.com/fnapi/fnapi/registry"
)

// serveStream answers a call in streaming mode: status 200 and a body of messages, chunk
// messages then end, or one error message and no end. The call runs through the same
// interceptors as any other, with c.Sink() set; it ends when the function returns, when the
// client goes away, or at Config.StreamTimeout (then with TIMEOUT).
func (h *Handler) serveStream(w http.ResponseWriter, r *http.Request, c *registry.Call) {
	ctx, cancel := context.WithTimeout(r.Context(), h.cfg.StreamTimeout)
	defer cancel()
	out := h.openStream(w, r, cancel, h.gzips(w, r, c.Func))
	defer out.close()
	calllink.Of(c).Sink = &httpSink{out: out, fn: c.Func.Name, m: h.cfg.Metrics}
	if _, err := h.call(registry.WithCall(ctx, c), c); err != nil {
		out.fail(err)
		return
	}
	b := bufpool.Get()
	defer bufpool.Put(b)
	appendEnd(b, "")
	_ = out.write(b.Bytes())
}

// failStream answers an error found before the call could start (an unknown function, bad
// arguments) the way every stream answers: status 200 and the error message in the stream.
func (h *Handler) failStream(w http.ResponseWriter, r *http.Request, err error) {
	out := h.openStream(w, r, func() {}, false)
	defer out.close()
	out.fail(err)
}

// fail answers err for a route: a stream message for streams, a plain error response otherwise.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, rt route, err error) {
	if rt.kind == "stream" {
		h.failStream(w, r, err)
		return
	}
	writeError(w, err)
}

// httpStream writes the messages of one HTTP stream in its framing (NDJSON lines, Server-Sent
// Events; see framing.go), gzipped when the client accepts it (see compress.go).
// A write leaves its message in the response's buffer and wakes the stream's flusher, which
// flushes all that was written since its last flush: a message is on its way as soon as it is
// produced, and a fast producer's messages share TLS records and system calls. Writes are
// serialised: the flusher and keepalives run in goroutines of their own.
type httpStream struct {
	mu         sync.Mutex
	w          http.ResponseWriter
	out        io.Writer   // w, or gz
	gz         *gzipWriter // when the stream is gzipped
	rc         *http.ResponseController
	framing    framing
	timeout    time.Duration
	cancel     context.CancelFunc // ends the call once a write failed
	broken     bool
	dirty      bool      // written since the last flush
	deadlineAt time.Time // the write deadline set last
	wrote      time.Time // last write, for keepalives
	kick       chan struct{}
	stop       chan struct{}
	flushed    chan struct{} // closed when the flusher has returned
}

// openStream sends the stream's header and starts its flusher and, if its framing has them,
// its keepalives. A gzipped stream compresses what each flush sends.
func (h *Handler) openStream(w http.ResponseWriter, r *http.Request, cancel context.CancelFunc, gzipped bool) *httpStream {
	s := &httpStream{
		w:       w,
		out:     w,
		rc:      http.NewResponseController(w),
		framing: framingFor(r),
		timeout: h.cfg.WS.WriteTimeout,
		cancel:  cancel,
		kick:    make(chan struct{}, 1),
		stop:    make(chan struct{}),
		flushed: make(chan struct{}),
		wrote:   time.Now(),
	}
	hd := w.Header()
	hd.Set("Content-Type", s.framing.contentType())
	if hd.Get("Cache-Control") == "" { // registry.NoStore's no-store stays
		hd.Set("Cache-Control", "no-cache")
	}
	hd.Set("X-Accel-Buffering", "no") // ask reverse proxies not to buffer the stream
	if gzipped {
		hd.Set("Content-Encoding", "gzip")
	}
	s.mu.Lock()
	s.deadline()
	w.WriteHeader(http.StatusOK)
	if gzipped {
		s.gz = newGzipWriter(w, h.cfg.CompressMinBytes)
		s.out = s.gz
	}
	s.flush()
	s.mu.Unlock()
	go s.flusher()
	if ka := s.framing.keepalive(); ka != nil {
		go s.keepalive(ka, h.cfg.WS.PingInterval)
	}
	return s
}

// keepalive writes ka when nothing was written for half an interval, so that proxies and
// browsers keep an idle stream open. It returns when the stream closes.
func (s *httpStream) keepalive(ka []byte, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case now := <-t.C:
			s.mu.Lock()
			if !s.broken && now.Sub(s.wrote) >= interval/2 {
				s.deadline()
				if _, err := s.out.Write(ka); err == nil && s.flush() == nil {
					s.wrote = now
				} else {
					s.broken = true
					s.cancel()
				}
			}
			s.mu.Unlock()
		}
	}
}

// write sends one message and flushes it. After a failed write (the client went away or did
// not read within the write timeout) the call is cancelled and every later write fails.
func (s *httpStream) write(msg []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writeLocked(msg)
}

var errStreamBroken = errors.New("transport: the stream's client went away")

func (s *httpStream) writeLocked(msg []byte) error {
	if s.broken {
		return errStreamBroken
	}
	s.deadline()
	if err := s.framing.writeMessage(s.out, msg); err != nil {
		s.broken = true
		s.cancel()
		return errors.Join(errStreamBroken, err)
	}
	s.wrote = time.Now()
	if !s.dirty {
		s.dirty = true
		select {
		case s.kick <- struct{}{}:
		default:
		}
	}
	return nil
}

// flusher flushes what was written, each time a write wakes it, until the stream closes.
func (s *httpStream) flusher() {
	defer close(s.flushed)
	for {
		select {
		case <-s.stop:
			return
		case <-s.kick:
		}
		s.mu.Lock()
		if s.dirty && !s.broken {
			s.dirty = false
			s.deadline()
			if err := s.flush(); err != nil {
				s.broken = true
				s.cancel()
			}
		}
		s.mu.Unlock()
	}
}

var newline = []byte{'\n'}

// deadline bounds the next writes by the write timeout, where the server supports it. The
// deadline moves only when less than half the timeout is left, sparing a timer update per write.
func (s *httpStream) deadline() {
	now := time.Now()
	if s.deadlineAt.Sub(now) < s.timeout/2 {
		s.deadlineAt = now.Add(s.timeout)
		_ = s.rc.SetWriteDeadline(s.deadlineAt)
	}
}

// flush sends what was written: compressed first, when the stream is gzipped.
func (s *httpStream) flush() error {
	if s.gz != nil {
		if err := s.gz.Flush(); err != nil {
			return err
		}
	}
	if err := s.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}

// fail sends err as the stream's last message.
func (s *httpStream) fail(err error) {
	b := bufpool.Get()
	defer bufpool.Put(b)
	appendError(b, "", apierr.From(err))
	_ = s.write(b.Bytes())
}

// close stops the keepalives, ends a gzipped stream's member and clears the write deadline, so
// that a kept-alive connection serves its next request without it.
func (s *httpStream) close() {
	close(s.stop)
	<-s.flushed
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gz != nil {
		if s.broken {
			s.gz.release()
		} else {
			s.deadline()
			s.broken = s.gz.Close() != nil
			s.dirty = true // the last segment and the trailer
		}
	}
	if s.dirty && !s.broken {
		s.deadline()
		if s.flush() != nil {
			s.broken = true
		}
	}
	if !s.broken {
		_ = s.rc.SetWriteDeadline(time.Time{})
	}
	s.broken = true // the handler returns: no goroutine may write any more
}

// httpSink is the stream.Sink of an HTTP stream.
type httpSink struct {
	out *httpStream
	fn  string
	m   *Metrics
}

// Send writes one chunk message. It fails once ctx is done or the client went away.
func (k *httpSink) Send(ctx context.Context, chunk any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b := bufpool.Get()
	defer bufpool.Put(b)
	if err := appendChunk(b, "", chunk); err != nil {
		return apierr.New(apierr.Internal).Wrap(err)
	}
	if err := k.out.write(b.Bytes()); err != nil {
		return err
	}
	if k.m != nil {
		k.m.chunk(k.fn)
	}
	return nil
}

// appendID opens a message in b, with the WebSocket call id when there is one.
func appendID(b *bytes.Buffer, id string) {
	b.WriteByte('{')
	if id != "" {
		b.WriteString(`"id":`)
		_ = jsonobject.Encode(b, id) // a string always encodes
		b.WriteByte(',')
	}
}

// appendChunk appends the message {"type":"chunk","chunk":chunk}.
func appendChunk(b *bytes.Buffer, id string, chunk any) error {
	n := b.Len()
	appendID(b, id)
	b.WriteString(`"type":"chunk","chunk":`)
	if err := jsonobject.Encode(b, chunk); err != nil {
		b.Truncate(n)
		return err
	}
	b.WriteByte('}')
	return nil
}

// appendEnd appends the message {"type":"end"}.
func appendEnd(b *bytes.Buffer, id string) {
	appendID(b, id)
	b.WriteString(`"type":"end"}`)
}

// appendError appends e as an error message.
func appendError(b *bytes.Buffer, id string, e *apierr.Error) {
	appendID(b, id)
	b.Write(errorJSON(e)[1:]) // the message without its opening brace
}
