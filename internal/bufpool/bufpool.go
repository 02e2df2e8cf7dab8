// Package bufpool lends the byte buffers an answer is written into before it is sent, so that
// a call allocates none: the HTTP transport and the MCP endpoint share one pool.
package bufpool

import (
	"bytes"
	"sync"
)

// MaxKept is the largest buffer given back to the pool: a bigger one is let go, so that one
// large answer does not pin its memory for good.
const MaxKept = 64 << 10

var pool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// Get returns an empty buffer; give it back with Put once its bytes are no longer used.
func Get() *bytes.Buffer {
	b := pool.Get().(*bytes.Buffer)
	b.Reset()
	return b
}

// Put gives b back; the caller must not use b, or any slice of its bytes, after.
func Put(b *bytes.Buffer) {
	if b.Cap() <= MaxKept {
		pool.Put(b)
	}
}
