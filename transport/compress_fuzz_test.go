package transport

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"testing"
)

// FuzzAcceptsGzip: any Accept-Encoding is read without a panic, and gzip is never chosen for one
// that names neither gzip nor "*".
func FuzzAcceptsGzip(f *testing.F) {
	for _, s := range []string{"gzip", "br;q=1.0, gzip;q=0.8", "*", "gzip;q=0", "identity", "GZIP ; q=0.5", ";;,,q="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		r := &http.Request{Header: http.Header{"Accept-Encoding": {v}}}
		got := acceptsGzip(r)
		if l := strings.ToLower(v); got && !strings.Contains(l, "gzip") && !strings.Contains(l, "*") {
			t.Errorf("acceptsGzip(%q) = true", v)
		}
	})
}

// FuzzGzipWriter: whatever is written, in whatever pieces and with whatever flushes, decodes to
// the same text through compress/gzip, checksum and length included, whether its segments are
// compressed or stored; and after each flush, all that was written decodes.
func FuzzGzipWriter(f *testing.F) {
	f.Add([]byte(`{"type":"chunk","chunk":1}`), []byte{3, 0, 200})
	f.Add(bytes.Repeat([]byte("traffic "), 9000), []byte{255, 255, 1})
	f.Fuzz(func(t *testing.T, text, cuts []byte) {
		var out bytes.Buffer
		z := newGzipWriter(&out, len(cuts)*100) // some segments stored, some compressed
		rest := text
		for _, c := range cuts { // each cut writes the next c*300 bytes; an odd one flushes after
			n := min(int(c)*300, len(rest))
			if _, err := z.Write(rest[:n]); err != nil {
				t.Fatal(err)
			}
			rest = rest[n:]
			if c%2 == 1 {
				if err := z.Flush(); err != nil {
					t.Fatal(err)
				}
				// Everything written so far decodes before the decoder asks for more: a live
				// stream's client reads each message without waiting for the next.
				if got, written := decodedBeforeDry(t, out.Bytes()), len(text)-len(rest); got != written {
					t.Fatalf("after a flush, %d bytes decode of %d written", got, written)
				}
			}
		}
		_, _ = z.Write(rest)
		if err := z.Close(); err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(&out)
		if err != nil {
			t.Fatal(err)
		}
		zr.Multistream(false)
		got, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(got, text) {
			t.Fatalf("decoded %d bytes (%v), wrote %d", len(got), err, len(text))
		}
	})
}

// decodedBeforeDry decodes a gzip stream cut short and returns how many bytes it had decoded
// when it asked for more than there was.
func decodedBeforeDry(t *testing.T, b []byte) int {
	got, at := 0, -1
	zr, err := gzip.NewReader(&dryReader{b: b, dry: func() {
		if at < 0 {
			at = got
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	for err == nil {
		var n int
		n, err = zr.Read(buf)
		got += n
	}
	return at
}

// dryReader reads b, then calls dry at each read past its end.
type dryReader struct {
	b   []byte
	dry func()
}

func (r *dryReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		r.dry()
		return 0, io.ErrUnexpectedEOF
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}
