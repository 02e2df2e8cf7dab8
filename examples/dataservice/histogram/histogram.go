package histogram

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
)

// The bucket layout. It is part of the stored format: changing it changes every stored
// histogram's meaning.
const (
	// RelativeError bounds the relative distance between a recorded value in [Min, Max] and
	// the value of its bucket.
	RelativeError = 0.02
	// Min is the upper bound of bucket 0, in seconds (one microsecond).
	Min = 1e-6
	// Buckets is the number of buckets.
	Buckets = 640
)

// Gamma is the ratio of a bucket's upper bound to its lower bound.
const Gamma = (1 + RelativeError) / (1 - RelativeError)

var logGamma = math.Log(Gamma)

// Max is the upper bound of the last bucket but one, in seconds: larger values are counted in
// the last bucket.
var Max = Min * math.Pow(Gamma, Buckets-2)

// ErrEncoding is returned by Decode for bytes that AppendBinary did not write.
var ErrEncoding = errors.New("histogram: bad encoding")

// Bucket is one non-empty bucket: its index and how many values it holds.
type Bucket struct {
	Index uint16
	Count uint64
}

// Histogram counts values (seconds) in the fixed buckets. The zero value is empty and ready
// to use. A Histogram is not safe for concurrent use.
type Histogram struct {
	// b holds the non-empty buckets, by increasing index.
	b []Bucket
}

// Index is the bucket that holds v seconds.
func Index(v float64) uint16 {
	if !(v > Min) { // NaN and negatives too
		return 0
	}
	i := math.Ceil(math.Log(v/Min) / logGamma)
	if i >= Buckets-1 {
		return Buckets - 1
	}
	return uint16(max(i, 1))
}

// Value is the value that bucket i stands for, in seconds: 0 for bucket 0.
func Value(i uint16) float64 {
	if i == 0 {
		return 0
	}
	return 2 * Min * math.Pow(Gamma, float64(i)) / (Gamma + 1)
}

// Add counts one value, in seconds.
func (h *Histogram) Add(v float64) { h.AddIndex(Index(v), 1) }

// AddIndex adds n to bucket i's count (i at most Buckets-1).
func (h *Histogram) AddIndex(i uint16, n uint64) {
	if n == 0 {
		return
	}
	i = min(i, Buckets-1)
	lo, hi := 0, len(h.b)
	for lo < hi {
		m := (lo + hi) / 2
		if h.b[m].Index < i {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(h.b) && h.b[lo].Index == i {
		h.b[lo].Count = SatAdd(h.b[lo].Count, n)
		return
	}
	h.b = append(h.b, Bucket{})
	copy(h.b[lo+1:], h.b[lo:])
	h.b[lo] = Bucket{Index: i, Count: n}
}

// Merge adds o's counts to h's.
func (h *Histogram) Merge(o Histogram) {
	switch {
	case len(h.b) == 0:
		h.b = append(h.b, o.b...)
	case len(o.b) <= 8:
		// A few buckets (a record's, a conversation's): inserted in place.
		for _, b := range o.b {
			h.AddIndex(b.Index, b.Count)
		}
	default:
		h.b = merge(h.b, o.b)
	}
}

// AddCounts adds counts[i] to bucket i's count, for every i: a histogram gathered densely.
func (h *Histogram) AddCounts(counts *[Buckets]uint64) {
	n := 0
	for _, c := range counts {
		if c != 0 {
			n++
		}
	}
	o := make([]Bucket, 0, n)
	for i, c := range counts {
		if c != 0 {
			o = append(o, Bucket{Index: uint16(i), Count: c})
		}
	}
	if len(h.b) == 0 {
		h.b = o
		return
	}
	h.b = merge(h.b, o)
}

// merge returns the buckets of a and b, each by increasing index, added up by index.
func merge(a, b []Bucket) []Bucket {
	out := make([]Bucket, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0].Index < b[0].Index:
			out, a = append(out, a[0]), a[1:]
		case a[0].Index > b[0].Index:
			out, b = append(out, b[0]), b[1:]
		default:
			out = append(out, Bucket{Index: a[0].Index, Count: SatAdd(a[0].Count, b[0].Count)})
			a, b = a[1:], b[1:]
		}
	}
	out = append(out, a...)
	return append(out, b...)
}

// Buckets returns the non-empty buckets by increasing index. The slice is h's own: do not
// modify it.
func (h Histogram) Buckets() []Bucket { return h.b }

// Count is the number of values counted, saturated at MaxUint64.
func (h Histogram) Count() uint64 {
	var n uint64
	for _, b := range h.b {
		n = SatAdd(n, b.Count)
	}
	return n
}

// SatAdd returns a+b, or math.MaxUint64 where the sum would wrap around. Counts saturate
// rather than wrap, wherever they are added (AddIndex, Merge, Count, and the stores' readers):
// a histogram whose counts claim more than 2^64 values (only ingest can claim them) keeps its
// largest buckets' weight instead of losing it to a wrapped sum.
func SatAdd(a, b uint64) uint64 {
	s, carry := bits.Add64(a, b, 0)
	if carry != 0 {
		return math.MaxUint64
	}
	return s
}

// Reset empties h, keeping its memory.
func (h *Histogram) Reset() { h.b = h.b[:0] }

// Clone returns a copy of h that shares no memory with it.
func (h Histogram) Clone() Histogram {
	if len(h.b) == 0 {
		return Histogram{}
	}
	return Histogram{b: append([]Bucket(nil), h.b...)}
}

// Quantile returns the value of the bucket holding the sample of rank ceil(q·Count), q in
// [0, 1], and false when h is empty. Quantile(1) is the maximum.
func (h Histogram) Quantile(q float64) (float64, bool) {
	n := h.Count()
	if n == 0 {
		return 0, false
	}
	q = min(max(q, 0), 1)
	rank := uint64(math.MaxUint64)
	if r := math.Ceil(q * float64(n)); r < math.MaxUint64 { // float64(MaxUint64) is 2^64
		rank = max(uint64(r), 1)
	}
	var seen uint64
	for _, b := range h.b {
		seen = SatAdd(seen, b.Count)
		if seen >= rank {
			return Value(b.Index), true
		}
	}
	return Value(h.b[len(h.b)-1].Index), true
}

// AppendBinary appends h's compact encoding to dst (see the package doc).
func (h Histogram) AppendBinary(dst []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(h.b)))
	prev := -1
	for _, b := range h.b {
		dst = binary.AppendUvarint(dst, uint64(int(b.Index)-prev))
		dst = binary.AppendUvarint(dst, b.Count)
		prev = int(b.Index)
	}
	return dst
}

// Decode reads a histogram that AppendBinary wrote; the whole of b must be one encoding.
func Decode(b []byte) (Histogram, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > Buckets {
		return Histogram{}, ErrEncoding
	}
	b = b[k:]
	h := Histogram{b: make([]Bucket, 0, n)}
	prev := -1
	for range n {
		gap, k := binary.Uvarint(b)
		if k <= 0 || gap == 0 || gap > Buckets {
			return Histogram{}, ErrEncoding
		}
		b = b[k:]
		c, k := binary.Uvarint(b)
		if k <= 0 || c == 0 {
			return Histogram{}, ErrEncoding
		}
		b = b[k:]
		idx := prev + int(gap)
		if idx >= Buckets {
			return Histogram{}, ErrEncoding
		}
		h.b = append(h.b, Bucket{Index: uint16(idx), Count: c})
		prev = idx
	}
	if len(b) != 0 {
		return Histogram{}, ErrEncoding
	}
	return h, nil
}
