package transport

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/internal/calllink"
	"github.com/fnapi/fnapi/registry"
)

// Reading a request body happens here, once per request, under three rules:
//
//   - time: the body must arrive within Config.BodyTimeout plus its length at
//     Config.MinBodyRate (bodyDeadline), enforced by the connection's read deadline, which is
//     lifted once the body is read (bodyDone) so that a stream that follows is not cut;
//   - size: at most a limit (the function's MaxBody, or an endpoint's), REQUEST-TOO-LARGE past
//     it;
//   - the token first: for a function that needs a token, a body larger than
//     [registry.DefaultMaxBody] is read only once the call is authenticated
//     (calllink.Facts.ReadArgs, run by requireIdentity), so a caller without a valid token never
//     has the server read more than that; such a body may not carry the token itself.
//
// readBody serves the HTTP calls and readAll the endpoints (Exchange.ReadBody). What a body's
// bytes mean, by Content-Type, is argReader.parse's (args.go).

// readBody reads the arguments of r's body into a, under the rules above. Only a POST's body is
// read; another method's body is left for net/http to discard, within the body's time.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request, c *registry.Call, a argReader) error {
	if r.Method != http.MethodPost {
		if r.ContentLength != 0 {
			// A body nobody reads: net/http discards up to 256 KiB of it after the answer,
			// within the body's time.
			h.bodyDeadline(w, r, nil)
		}
		return nil
	}
	if r.ContentLength > a.limit {
		return tooLarge(a.limit)
	}
	if r.ContentLength == 0 {
		return a.parse(r, http.MaxBytesReader(w, r.Body, a.limit))
	}
	rd, body := h.bodyDeadline(w, r, r.Body)
	needsToken := c.Func.Access != decl.Public
	large := r.ContentLength > registry.DefaultMaxBody
	if a.limit > registry.DefaultMaxBody && needsToken && r.ContentLength < 0 {
		// Unknown length: read the default's worth to tell.
		head, err := io.ReadAll(io.LimitReader(body, registry.DefaultMaxBody+1))
		if err != nil {
			return bodyDone(w, rd, readError(err, a.limit))
		}
		large = len(head) > registry.DefaultMaxBody
		if large {
			body = readCloser{io.MultiReader(bytes.NewReader(head), body), body}
		} else {
			body = io.NopCloser(bytes.NewReader(head))
		}
	}
	if large && needsToken {
		calllink.Of(c).ReadArgs = func() error {
			if err := bodyDone(w, rd, a.parse(r, http.MaxBytesReader(w, body, a.limit))); err != nil {
				return err
			}
			for _, name := range []string{argSession, argKey} {
				if _, ok := a.args[name]; ok {
					return apierr.New(apierr.InvalidArgument, "name", name, "reason", fmt.Sprintf(
						"a token in a body of more than %d bytes is not read: send it in the header, the cookie or the query string",
						registry.DefaultMaxBody))
				}
			}
			return nil
		}
		return nil
	}
	return bodyDone(w, rd, a.parse(r, http.MaxBytesReader(w, body, a.limit)))
}

// readAll reads r's body, up to limit bytes, within the body's time.
func (h *Handler) readAll(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, tooLarge(limit)
	}
	rd, body := h.bodyDeadline(w, r, r.Body)
	b, err := io.ReadAll(http.MaxBytesReader(w, body, limit))
	if err != nil {
		return nil, bodyDone(w, rd, readError(err, limit))
	}
	return b, bodyDone(w, rd, nil)
}

// readTo reads r's body into buf, up to limit bytes, within the body's time. A body of known
// length (within limit) is read in one go: the server ends it at its Content-Length, so no
// reader bounds it; a body shorter than it says is cut.
func (h *Handler) readTo(w http.ResponseWriter, r *http.Request, buf *bytes.Buffer, limit int64) error {
	if r.ContentLength > limit {
		return tooLarge(limit)
	}
	rd, body := h.bodyDeadline(w, r, r.Body)
	var err error
	if n := int(r.ContentLength); n >= 0 && body != nil {
		buf.Grow(n)
		b := buf.AvailableBuffer()[:n]
		_, err = io.ReadFull(body, b)
		buf.Write(b) // in place
	} else {
		_, err = buf.ReadFrom(http.MaxBytesReader(w, body, limit))
	}
	if err != nil {
		return bodyDone(w, rd, readError(err, limit))
	}
	return bodyDone(w, rd, nil)
}

type readCloser struct {
	io.Reader
	io.Closer
}

func tooLarge(limit int64) error {
	return apierr.New(apierr.RequestTooLarge, "limit", limit)
}

// cutShort reports whether err is the body's: past its size limit or its time, rather than
// in what it holds.
func cutShort(err error) bool {
	var mbe *http.MaxBytesError
	return errors.As(err, &mbe) || errors.Is(err, os.ErrDeadlineExceeded)
}

// readError returns the error of a body that could not be read: too large (past limit), too
// slow, or cut.
func readError(err error, limit int64) error {
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return tooLarge(limit)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return apierr.New(apierr.Timeout, "reason", "the body did not arrive in time").WithStatus(http.StatusRequestTimeout)
	}
	return apierr.New(apierr.InvalidArgument, "reason", "the body could not be read")
}

// bodyDeadline bounds the time to read r's body by the connection's read deadline: the body
// must arrive within Config.BodyTimeout plus its length at Config.MinBodyRate. A body of
// unknown length gets BodyTimeout to start with, and more time as its bytes arrive: body is
// returned wrapped to count them. It returns the connection's deadline setter for bodyDone;
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

// bodyDone ends the reading of a body with its error err: once the body is read, it lifts the
// deadline bodyDeadline set (through rd), so that the call (a stream) is not cut; after a body
// that did not arrive in time, the connection closes with the answer, rather than net/http
// reading the rest of the body. It returns err.
func bodyDone(w http.ResponseWriter, rd readDeadliner, err error) error {
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
