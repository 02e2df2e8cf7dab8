package transport

import (
	"io"
	"net/http"
	"time"

	"github.com/fnapi/fnapi/apierr"
)

// bodyDeadline bounds the time to read r's body by the connection's read deadline: the body
// must arrive within Config.BodyTimeout plus its length at Config.MinBodyRate. A body of
// unknown length gets BodyTimeout to start with, and more time as its bytes arrive: body is
// returned wrapped to count them. It returns the connection's deadline setter for bodyRead;
// nil where the connection has no deadlines (then body is returned as is).
func (h *Handler) bodyDeadline(w http.ResponseWriter, r *http.Request, body io.ReadCloser) (readDeadliner, io.ReadCloser) {
	rd := deadlinerOf(w)
	if rd == nil {
		return nil, body
	}
	now := time.Now()
	d := now.Add(h.cfg.BodyTimeout + bytesTime(r.ContentLength, h.cfg.MinBodyRate))
	if rd.SetReadDeadline(d) != nil {
		return nil, body
	}
	if r.ContentLength < 0 && body != nil {
		body = &timedBody{ReadCloser: body, rd: rd, start: now, h: h, at: d}
	}
	return rd, body
}

// readDeadliner is what net/http's ResponseWriter offers to set the connection's read
// deadline (see [http.ResponseController]).
type readDeadliner interface {
	SetReadDeadline(time.Time) error
}

// deadlinerOf finds the read deadline setter of w, through wrappers that Unwrap, as
// [http.ResponseController] does, without allocating one.
func deadlinerOf(w http.ResponseWriter) readDeadliner {
	for {
		switch t := w.(type) {
		case readDeadliner:
			return t
		case interface{ Unwrap() http.ResponseWriter }:
			w = t.Unwrap()
		default:
			return nil
		}
	}
}

// bodyRead ends the reading of a body with its error err: once the body is read, it lifts the
// deadline bodyDeadline set (through rd), so that the call (a stream) is not cut; after a body
// that did not arrive in time, the connection closes with the answer, rather than net/http
// reading the rest of the body. It returns err.
func bodyRead(w http.ResponseWriter, rd readDeadliner, err error) error {
	switch {
	case err == nil:
		if rd != nil {
			_ = rd.SetReadDeadline(time.Time{})
		}
	case apierr.CodeOf(err) == apierr.Timeout.Code():
		w.Header().Set("Connection", "close")
	}
	return err
}

// bytesTime is how long n bytes take at rate bytes per second; nothing for n < 0.
func bytesTime(n, rate int64) time.Duration {
	if n <= 0 {
		return 0
	}
	return time.Duration(n/rate)*time.Second + time.Duration(n%rate)*time.Second/time.Duration(rate)
}

// timedBody extends the read deadline of a body of unknown length as its bytes arrive.
type timedBody struct {
	io.ReadCloser
	rd    readDeadliner
	h     *Handler
	start time.Time
	n     int64     // bytes read
	at    time.Time // the deadline set last
}

func (b *timedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	// Move the deadline only when it moves by a second or more: a timer update per read
	// would cost more than the read.
	if d := b.start.Add(b.h.cfg.BodyTimeout + bytesTime(b.n, b.h.cfg.MinBodyRate)); d.Sub(b.at) >= time.Second {
		b.at = d
		_ = b.rd.SetReadDeadline(d)
	}
	return n, err
}
