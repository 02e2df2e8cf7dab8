package records_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/histogram"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// TestHistBytes checks the histograms that rollups keep as bytes: one written by
// AppendHistBytes reads back as it was, each entry in the fewest bytes that hold the largest,
// and a value that is not one (cut, too long, of no width or a width past 8, an index out of
// range or out of order) is ErrHistBytes.
func TestHistBytes(t *testing.T) {
	t.Parallel()
	var h histogram.Histogram
	h.AddIndex(0, 3)
	h.AddIndex(300, 1)
	h.AddIndex(histogram.Buckets-1, records.MaxHistCount)
	b := records.AppendHistBytes(nil, h)
	var counts [histogram.Buckets]uint64
	if err := records.AddHistBytes(&counts, b); err != nil || counts[0] != 3 || counts[300] != 1 || counts[histogram.Buckets-1] != records.MaxHistCount {
		t.Fatalf("read back %v, %v", counts, err)
	}
	for _, c := range []struct {
		count uint64
		width int
	}{{1, 2}, {63, 2}, {64, 3}, {1 << 14, 4}, {records.MaxHistCount, 8}} {
		var h histogram.Histogram
		h.AddIndex(5, 1)
		h.AddIndex(9, c.count)
		if b := records.AppendHistBytes(nil, h); len(b) != 1+2*c.width || int(b[0]) != c.width {
			t.Errorf("a count of %d: %x, want entries of %d bytes", c.count, b, c.width)
		}
	}
	if b := records.AppendHistBytes(nil, histogram.Histogram{}); len(b) != 0 {
		t.Errorf("the empty histogram: %x, want no bytes", b)
	}
	entry := func(i, n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n<<records.HistShift|i) }
	full := []byte{8}
	for i := range uint64(histogram.Buckets) {
		full = append(full, entry(i, 1)...)
	}
	if err := records.AddHistBytes(&[histogram.Buckets]uint64{}, full); err != nil {
		t.Errorf("a histogram of every bucket: %v", err)
	}
	for name, bad := range map[string][]byte{
		"cut":          b[:len(b)-1],
		"too long":     append(full, entry(0, 1)...),
		"no width":     {0, 1, 2},
		"too wide":     append([]byte{9}, make([]byte, 9)...),
		"out of range": append([]byte{8}, entry(histogram.Buckets, 1)...),
		"repeated":     append(append([]byte{8}, entry(5, 1)...), entry(5, 1)...),
		"decreasing":   append(append([]byte{8}, entry(6, 1)...), entry(5, 1)...),
	} {
		if err := records.AddHistBytes(&[histogram.Buckets]uint64{}, bad); !errors.Is(err, records.ErrHistBytes) {
			t.Errorf("%s: %v, want ErrHistBytes", name, err)
		}
	}
}

// TestHistBytesSaturate checks that the counts of many rollup rows, each saturated at
// MaxHistCount, add up to MaxUint64 rather than wrap around to a small count.
func TestHistBytesSaturate(t *testing.T) {
	t.Parallel()
	var h histogram.Histogram
	h.AddIndex(7, records.MaxHistCount)
	b := records.AppendHistBytes(nil, h)
	var counts [histogram.Buckets]uint64
	for range 1025 { // 1025 · (2^54-1) > 2^64
		if err := records.AddHistBytes(&counts, b); err != nil {
			t.Fatal(err)
		}
	}
	if counts[7] != math.MaxUint64 {
		t.Fatalf("1025 saturated rows add up to %d, want MaxUint64", counts[7])
	}
}

// FuzzAddHistBytes reads arbitrary bytes as a stored histogram: an error or counts, never a
// panic; what it reads writes back as the same bytes but for entries of no count.
func FuzzAddHistBytes(f *testing.F) {
	var h histogram.Histogram
	h.AddIndex(1, 2)
	h.AddIndex(639, 1<<40)
	f.Add(records.AppendHistBytes(nil, h))
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{2, 0x04, 0x01, 0x08, 0x02})
	f.Add(bytes.Repeat([]byte{0xff}, 16))
	f.Add(append([]byte{8}, bytes.Repeat([]byte{0xff}, 16)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		var counts [histogram.Buckets]uint64
		if err := records.AddHistBytes(&counts, b); err != nil {
			return
		}
		var h histogram.Histogram
		h.AddCounts(&counts)
		var again [histogram.Buckets]uint64
		if err := records.AddHistBytes(&again, records.AppendHistBytes(nil, h)); err != nil || again != counts {
			t.Fatalf("written back and read: %v, %v", again != counts, err)
		}
	})
}
