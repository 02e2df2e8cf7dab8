package client

import (
	"container/list"
	"encoding/json"
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// Conditional reads. A typed Call of a function declared decl.ReadOnly goes over HTTPS as a
// GET, its arguments in the query string (each member's JSON, URL-encoded). The client keeps
// the last answer of each such call (URL: version, function and arguments) with its ETag, and
// sends the tag as If-None-Match when the call repeats: the server answers 304 without a body
// while the answer is the same, and the call decodes the copy kept. A program that polls a
// dashboard or a status then costs the server no transfer when nothing changed.
//
// The copies are bounded: WithReadCache(n) keeps the n most recently used (default 64), each
// answer of at most maxKeptAnswer bytes (1 MiB; larger ones are not kept). Arguments whose
// query string would be longer than maxReadQuery (4 KiB, under the 8 KiB many proxies allow
// in a URL) go as a POST, as every call does without the declaration, over a WSConn, and
// with WithReadCache(0).

const (
	defaultReadCache = 64
	maxKeptAnswer    = 1 << 20
	maxReadQuery     = 4 << 10
)

// WithReadCache keeps the last answer of up to n conditional reads (calls of functions
// declared decl.ReadOnly) to answer them from when the server says they did not change; 0
// sends them as POSTs, unconditionally (see reads.go's doc). Default: 64.
func WithReadCache(n int) Option { return func(o *options) { o.reads = max(n, 0) } }

// readCache holds the kept answers by URL, least recently used first out. It is safe for
// concurrent use.
type readCache struct {
	max int
	mu  sync.Mutex
	m   map[string]*list.Element // of *kept
	lru list.List                // most recently used at the front
}

type kept struct {
	url, etag string
	body      []byte // the message as the server sent it, {"type":"result",...}
}

func newReadCache(n int) *readCache {
	if n == 0 {
		return nil
	}
	return &readCache{max: n, m: map[string]*list.Element{}}
}

// get returns the ETag and message kept for url, or "".
func (rc *readCache) get(url string) (string, []byte) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	e := rc.m[url]
	if e == nil {
		return "", nil
	}
	rc.lru.MoveToFront(e)
	k := e.Value.(*kept)
	return k.etag, k.body
}

// put keeps message body, tagged etag, as url's answer; an empty tag or a body too large
// forgets url's.
func (rc *readCache) put(url, etag string, body []byte) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if e := rc.m[url]; e != nil {
		rc.lru.Remove(e)
		delete(rc.m, url)
	}
	if etag == "" || len(body) > maxKeptAnswer {
		return
	}
	rc.m[url] = rc.lru.PushFront(&kept{url: url, etag: etag, body: body})
	for rc.lru.Len() > rc.max {
		old := rc.lru.Remove(rc.lru.Back()).(*kept)
		delete(rc.m, old.url)
	}
}

// readQuery returns the query string of a call's arguments, a JSON object: each member as
// name=its JSON, names sorted (one URL per argument set); false when it is longer than
// maxReadQuery.
func readQuery(args json.RawMessage) (string, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return "", false
	}
	var q strings.Builder
	for _, name := range slices.Sorted(maps.Keys(m)) {
		if q.Len() > 0 {
			q.WriteByte('&')
		}
		q.WriteString(url.QueryEscape(name))
		q.WriteByte('=')
		q.WriteString(url.QueryEscape(string(m[name])))
		if q.Len() > maxReadQuery {
			return "", false
		}
	}
	return q.String(), true
}
