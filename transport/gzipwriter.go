package transport

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"github.com/fnapi/fnapi/internal/bufpool"
	"hash/crc32"
	"io"
	"sync"
)

// gzipWriter writes one gzip member (RFC 1952) whose compressor is held only while it
// compresses: what is written gathers in a buffer, and each Flush compresses it with a
// flate.Writer taken from a pool, ends it on a byte boundary (a sync flush) and gives the
// compressor back. The deflate blocks of successive flushes follow one another in one stream,
// which any gzip reader decodes; a segment just never refers to the text of an earlier one.
// A segment shorter than min goes as a stored block (its bytes as they are, and 10 of framing):
// compressed alone, a message of a hundred bytes shrinks by a fifth for the CPU of a whole
// compression (Huffman tables built for each block; BENCHMARKS.md).
//
// A compressor (compress/flate at BestSpeed) holds 1.2 MB: kept for the life of a stream, a
// thousand open streams would hold 1.2 GB. Taken per flush, the compressors in use are bounded
// by the flushes running at once, whatever the number of open streams; an open stream holds its
// buffer only between a write and the next flush. The price is the ratio of streams of small,
// separately flushed messages, which cannot refer to the messages before (BENCHMARKS.md).
type gzipWriter struct {
	w    io.Writer
	min  int           // the least a segment must hold to be compressed
	buf  *bytes.Buffer // written since the last segment; nil when empty
	crc  uint32
	size uint32 // of the uncompressed text, modulo 2^32 as RFC 1952 has it
	err  error
}

// gzipSegmentMax is the most a gzipWriter gathers before it compresses a segment without
// waiting for Flush, so that a fast writer's buffer stays bounded.
const gzipSegmentMax = 32 << 10

// gzipHeader opens a member: no name, no time, "fastest" compression, unknown system.
var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 255}

var flateWriters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(io.Discard, flate.BestSpeed)
	return w
}}

// newGzipWriter writes a member's header to w and returns the writer of its text, which
// compresses the segments of at least min bytes.
func newGzipWriter(w io.Writer, min int) *gzipWriter {
	z := &gzipWriter{w: w, min: min}
	_, z.err = w.Write(gzipHeader)
	return z
}

// Write gathers p, compressing a segment once gzipSegmentMax bytes gathered.
func (z *gzipWriter) Write(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	if z.buf == nil {
		z.buf = bufpool.Get()
	}
	z.buf.Write(p)
	z.crc = crc32.Update(z.crc, crc32.IEEETable, p)
	z.size += uint32(len(p))
	if z.buf.Len() >= gzipSegmentMax {
		z.segment(false)
	}
	return len(p), z.err
}

// Flush compresses what gathered and writes it, ending on a byte boundary: a reader can decode
// everything written so far. The caller flushes w itself.
func (z *gzipWriter) Flush() error {
	if z.buf != nil && z.err == nil {
		z.segment(false)
	}
	return z.err
}

// Close compresses what gathered as the last segment and writes the member's trailer. It does
// not close w.
func (z *gzipWriter) Close() error {
	if z.err != nil {
		z.release()
		return z.err
	}
	z.segment(true)
	if z.err == nil {
		var t [8]byte
		binary.LittleEndian.PutUint32(t[:4], z.crc)
		binary.LittleEndian.PutUint32(t[4:], z.size)
		_, z.err = z.w.Write(t[:])
	}
	return z.err
}

// segment compresses the gathered text, ending with a sync flush, or with the final block when
// last is set.
func (z *gzipWriter) segment(last bool) {
	if n := z.len(); n < z.min && n <= 0xffff {
		z.stored(last)
		return
	}
	fw := flateWriters.Get().(*flate.Writer)
	fw.Reset(z.w)
	if z.buf != nil {
		_, z.err = fw.Write(z.buf.Bytes())
	}
	if z.err == nil {
		if last {
			z.err = fw.Close()
		} else {
			z.err = fw.Flush()
		}
	}
	fw.Reset(io.Discard) // let go of z.w
	flateWriters.Put(fw)
	z.release()
}

func (z *gzipWriter) len() int {
	if z.buf == nil {
		return 0
	}
	return z.buf.Len()
}

// stored writes the gathered text, at most 64 KiB, as a stored block (RFC 1951, 3.2.4): the
// final bit, type 00 and the padding to the byte boundary where the block starts, then the
// length and its complement, then the text. Unless it is the last, an empty stored block
// follows, as after a sync flush: decoders (compress/flate among them) hand the text of a
// stored block over only once they read the header of the next block.
func (z *gzipWriter) stored(last bool) {
	n := z.len()
	h := [10]byte{0, byte(n), byte(n >> 8), ^byte(n), ^byte(n >> 8), 0, 0, 0, 0xff, 0xff}
	if last {
		h[0] = 1
	}
	if _, z.err = z.w.Write(h[:5]); z.err == nil && n > 0 {
		_, z.err = z.w.Write(z.buf.Bytes())
	}
	if z.err == nil && !last && n > 0 {
		_, z.err = z.w.Write(h[5:])
	}
	z.release()
}

// release gives the buffer back.
func (z *gzipWriter) release() {
	if z.buf != nil {
		bufpool.Put(z.buf)
		z.buf = nil
	}
}
