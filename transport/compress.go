package transport

import (
	"compress/gzip"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/fnapi/fnapi/registry"
)

// A JSON answer of at least Config.CompressMinBytes goes gzipped to a client that accepts gzip,
// at gzip.BestSpeed (answers are JSON, which compresses well even at the fastest level, and the
// server's CPU is the scarcer resource). Never compressed, whatever their size: the answers of
// functions declared registry.NoStore, which put a secret (a session ID, an API key) next to
// text the caller chose, so that the compressed length could not leak the secret (BREACH).
// Streams and the WebSocket are not compressed.

var gzipWriters = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed)
	return w
}}

// acceptsGzip reports whether the request's Accept-Encoding allows gzip (or any encoding).
func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for _, part := range strings.Split(v, ",") {
			name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			name = strings.ToLower(strings.TrimSpace(name))
			if name != "gzip" && name != "*" {
				continue
			}
			if q, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
				if f, err := strconv.ParseFloat(q, 64); err == nil && f == 0 {
					continue
				}
			}
			return true
		}
	}
	return false
}

// writeGzip writes body gzipped, with its headers; the status is 200.
func writeGzip(w http.ResponseWriter, body []byte) {
	h := w.Header()
	h.Set("Content-Encoding", "gzip")
	h.Del("Content-Length")
	w.WriteHeader(http.StatusOK)
	zw := gzipWriters.Get().(*gzip.Writer)
	zw.Reset(w)
	_, _ = zw.Write(body)
	_ = zw.Close()
	zw.Reset(io.Discard)
	gzipWriters.Put(zw)
}

// compressMin is the size from which the answer to r, a call of f, is gzipped; 0 for never.
// An answer that may be compressed varies with Accept-Encoding, which it says to caches.
func (h *Handler) compressMin(w http.ResponseWriter, r *http.Request, f *registry.Func) int {
	if h.cfg.CompressMinBytes < 0 || f.NoStore {
		return 0
	}
	w.Header().Add("Vary", "Accept-Encoding")
	if !acceptsGzip(r) {
		return 0
	}
	return h.cfg.CompressMinBytes
}
