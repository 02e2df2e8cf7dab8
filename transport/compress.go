package transport

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/fnapi/fnapi/registry"
)

// A JSON answer of at least Config.CompressMinBytes goes gzipped to a client that accepts gzip,
// and so does every stream (NDJSON, Server-Sent Events), whatever its size, flushed with its
// messages (see gzipWriter). Compression is at BestSpeed: answers are JSON, which compresses
// well even at the fastest level, and the server's CPU is the scarcer resource. Never
// compressed: the answers of functions declared registry.NoStore, which put a secret (a session
// ID, an API key) next to text the caller chose, so that the compressed length could not leak
// the secret (BREACH).

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

// writeGzip writes status and body gzipped, with its headers.
func writeGzip(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Encoding", "gzip")
	h.Del("Content-Length")
	w.WriteHeader(status)
	zw := newGzipWriter(w, 0)
	_, _ = zw.Write(body)
	_ = zw.Close()
}

// compressMin is the size from which the answer to r, a call of f, is gzipped; 0 for never.
func (h *Handler) compressMin(w http.ResponseWriter, r *http.Request, f *registry.Func) int {
	if !h.gzips(w, r, f) {
		return 0
	}
	return h.cfg.CompressMinBytes
}

// gzips reports whether the answer to r, a call of f, may go gzipped: compression is on, f's
// answers carry no secret (NoStore) and the client accepts gzip. An answer that may be
// compressed varies with Accept-Encoding, which it says to caches.
func (h *Handler) gzips(w http.ResponseWriter, r *http.Request, f *registry.Func) bool {
	if h.cfg.CompressMinBytes < 0 || f.NoStore {
		return false
	}
	w.Header().Add("Vary", "Accept-Encoding")
	return acceptsGzip(r)
}
