package transport

import (
	"encoding/base64"
	"encoding/binary"
	"net/http"
	"strings"
	"unsafe"

	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
)

// Conditional reads. The answer to a GET of a read-only function (registry.ReadOnly) carries a
// strong ETag, computed from the answer's body: a 128-bit hash of the exact message sent
// before compression (hash128: XXH64 and a second 64 bits of the same pass), base64url, in
// quotes. A gzipped answer is another representation (RFC 9110 §8.8.3), so its tag is the
// same with "-gzip" appended inside the quotes, and both say Vary: Accept-Encoding. The hash
// is fixed, so every node and every release tags the same bytes alike, and fast (a few GB/s in
// plain Go, a quarter of SHA-256's time: BENCHMARKS.md). It is not cryptographic: two answers
// of one URL share a tag by chance once in 2^128, and one who writes part of an answer might
// craft two versions that do; which keeps readers on the version they had of what that writer
// wrote, nothing more (the other parts of the answer change its tag). A few lines of the
// standard library's math/bits rather than a module: XXH64 is specified and short.
//
// A request whose If-None-Match lists the tag of the answer it would get (weak comparison,
// RFC 9110 §13.1.2: W/ is ignored), or is *, answers 304 Not Modified without a body, with the
// answer's ETag, Cache-Control and Vary. The function runs all the same: the tag is its
// answer's. These answers say Cache-Control: no-cache (private for a function that needs a
// token): a cache may keep them, and asks the server each time, which answers 304 while
// nothing changed.
//
// No tag on the answers of functions that change things, of NoStore functions (nothing is to
// keep them), of streams and of errors.

// etagged reports whether the answer to r, a call of f, carries an ETag.
func etagged(r *http.Request, f *registry.Func) bool {
	return r.Method == http.MethodGet && f.ReadOnly && !f.NoStore && !f.Streaming
}

var (
	noCache        = []string{"no-cache"}
	privateNoCache = []string{"private, no-cache"}
)

// etag returns the strong entity tag of the message body, gzipped or not, as the one value of
// an ETag header: the slice and the tag's bytes are one allocation (the tag is on every
// answer of a read-only GET, so it is kept to the hash and one small object).
func etag(body []byte, gzipped bool) []string {
	var sum [16]byte
	h1, h2 := hash128(body)
	binary.BigEndian.PutUint64(sum[:], h1)
	binary.BigEndian.PutUint64(sum[8:], h2)
	t := new(struct {
		v [1]string
		b [1 + 22 + 5 + 1]byte
	})
	t.b[0] = '"'
	base64.RawURLEncoding.Encode(t.b[1:23], sum[:])
	n := 23
	if gzipped {
		n += copy(t.b[n:], "-gzip")
	}
	t.b[n] = '"'
	t.v[0] = unsafe.String(&t.b[0], n+1) // t.b is never written again
	return t.v[:]
}

// noneMatch reports whether the If-None-Match values vs name the entity tag tag, by weak
// comparison: W/ prefixes are ignored.
func noneMatch(vs []string, tag string) bool {
	for _, v := range vs {
		for v != "" {
			v = strings.TrimLeft(v, " \t,")
			if strings.HasPrefix(v, "*") {
				return true
			}
			v = strings.TrimPrefix(v, "W/")
			if !strings.HasPrefix(v, `"`) {
				// Not an entity tag: skip to the next element.
				_, v, _ = strings.Cut(v, ",")
				continue
			}
			end := strings.IndexByte(v[1:], '"')
			if end < 0 {
				break
			}
			if v[:end+2] == tag {
				return true
			}
			v = v[end+2:]
		}
	}
	return false
}

// writeTagged answers the result message body with its ETag and Cache-Control, gzipped when it
// is at least compressMin bytes long (0: never); or 304 without a body when the request's
// If-None-Match names the tag.
func writeTagged(w http.ResponseWriter, r *http.Request, f *registry.Func, body []byte, compressMin int) {
	gz := compressMin > 0 && len(body) >= compressMin
	h := w.Header()
	h["Etag"] = etag(body, gz)
	if f.Access == decl.Public {
		h["Cache-Control"] = noCache
	} else {
		h["Cache-Control"] = privateNoCache
	}
	if vs := r.Header["If-None-Match"]; vs != nil && noneMatch(vs, h["Etag"][0]) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	writeMessage(w, http.StatusOK, body, gz)
}
