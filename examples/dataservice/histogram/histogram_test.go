package histogram_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/histogram"
)

func TestRelativeError(t *testing.T) {
	t.Parallel()
	if histogram.Max < 24*3600 {
		t.Fatalf("Max = %v s, want at least a day", histogram.Max)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		v := histogram.Min * math.Exp(r.Float64()*math.Log(histogram.Max/histogram.Min))
		got := histogram.Value(histogram.Index(v))
		if e := math.Abs(got-v) / v; e > histogram.RelativeError+1e-9 {
			t.Fatalf("value %v in bucket %d stands for %v: relative error %v", v, histogram.Index(v), got, e)
		}
	}
	for _, v := range []float64{0, -1, math.NaN(), histogram.Min} {
		if i := histogram.Index(v); i != 0 {
			t.Errorf("Index(%v) = %d, want 0", v, i)
		}
	}
	if i := histogram.Index(1e9); i != histogram.Buckets-1 {
		t.Errorf("Index(1e9) = %d, want the last bucket", i)
	}
}

func TestQuantileNearestRank(t *testing.T) {
	t.Parallel()
	var h histogram.Histogram
	if _, ok := h.Quantile(0.5); ok {
		t.Fatal("empty histogram has a quantile")
	}
	for _, v := range []float64{0.004, 0.001, 0.003, 0.002} {
		h.Add(v)
	}
	near := func(got, want float64) bool { return math.Abs(got-want) <= want*histogram.RelativeError }
	for _, c := range []struct{ q, want float64 }{{0.5, 0.002}, {0.95, 0.004}, {0.25, 0.001}, {0.26, 0.002}, {1, 0.004}, {0, 0.001}} {
		got, _ := h.Quantile(c.q)
		if !near(got, c.want) {
			t.Errorf("Quantile(%v) = %v, want %v within 2 %%", c.q, got, c.want)
		}
	}
}

// TestMergeOrder checks that merging in any order or grouping gives the same buckets, hence
// the same quantiles, as one histogram of every sample.
func TestMergeOrder(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	var all histogram.Histogram
	parts := make([]histogram.Histogram, 7)
	for i := range 5000 {
		v := r.ExpFloat64() * 0.05
		all.Add(v)
		parts[i%len(parts)].Add(v)
	}
	var fwd, rev histogram.Histogram
	for i := range parts {
		fwd.Merge(parts[i])
		rev.Merge(parts[len(parts)-1-i])
	}
	for _, h := range []histogram.Histogram{fwd, rev} {
		if !slices.Equal(h.Buckets(), all.Buckets()) {
			t.Fatal("merged buckets differ from the buckets of all samples")
		}
	}
	if all.Count() != 5000 {
		t.Fatalf("Count = %d", all.Count())
	}
}

// TestMergeSizes merges histograms of one bucket, a few and many, into empty and full ones,
// and dense counts (AddCounts), and checks each against the same samples added one by one.
func TestMergeSizes(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	var want, got, dense histogram.Histogram
	var counts [histogram.Buckets]uint64
	for round := range 200 {
		var part histogram.Histogram
		for range []int{1, 3, 9, 40, 400}[round%5] {
			i := uint16(r.IntN(histogram.Buckets))
			n := uint64(r.IntN(5) + 1)
			want.AddIndex(i, n)
			part.AddIndex(i, n)
			counts[i] += n
		}
		got.Merge(part)
		if round%7 == 0 {
			dense.AddCounts(&counts)
			counts = [histogram.Buckets]uint64{}
		}
		part.AddIndex(part.Buckets()[0].Index, 1000) // got must not share part's memory
	}
	dense.AddCounts(&counts)
	if !slices.Equal(got.Buckets(), want.Buckets()) {
		t.Fatal("Merge: buckets differ from the samples added one by one")
	}
	if !slices.Equal(dense.Buckets(), want.Buckets()) {
		t.Fatal("AddCounts: buckets differ from the samples added one by one")
	}
}

func TestEncoding(t *testing.T) {
	t.Parallel()
	var h histogram.Histogram
	if b := h.AppendBinary(nil); !bytes.Equal(b, []byte{0}) {
		t.Fatalf("empty encodes as %x", b)
	}
	h.Add(0.040)
	if b := h.AppendBinary(nil); len(b) > 4 {
		t.Fatalf("one sample encodes in %d bytes, want at most 4", len(b))
	}
	h.Add(0)
	h.Add(1e9)
	h.AddIndex(7, 1<<40)
	b := h.AppendBinary(nil)
	got, err := histogram.Decode(b)
	if err != nil || !slices.Equal(got.Buckets(), h.Buckets()) {
		t.Fatalf("Decode(%x) = %v, %v; want %v", b, got.Buckets(), err, h.Buckets())
	}
	for _, bad := range [][]byte{nil, {1}, {1, 0, 1}, {1, 1, 0}, {0, 0}, {1, 0x81}, {2, 1, 1, 0xff, 0x0f, 1}} {
		if _, err := histogram.Decode(bad); err == nil {
			t.Errorf("Decode(%x) accepted", bad)
		}
	}
}

func FuzzDecode(f *testing.F) {
	var h histogram.Histogram
	h.Add(0.01)
	h.Add(3)
	f.Add(h.AppendBinary(nil))
	f.Add([]byte{0})
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := histogram.Decode(b)
		if err != nil {
			return
		}
		again, err := histogram.Decode(h.AppendBinary(nil))
		if err != nil || !slices.Equal(again.Buckets(), h.Buckets()) {
			t.Fatalf("Decode(%x) does not survive re-encoding: %v", b, err)
		}
		h.Quantile(0.99)
	})
}

func BenchmarkAdd(b *testing.B) {
	var h histogram.Histogram
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		h.Add(float64(i%1000) * 1e-4)
	}
}

// TestSaturate checks that counts past 2^64 saturate wherever they add up, so that the largest
// buckets keep their weight: a wrapped sum would make them the smallest.
func TestSaturate(t *testing.T) {
	t.Parallel()
	var h histogram.Histogram
	h.AddIndex(1, 1)
	h.AddIndex(500, math.MaxUint64-1)
	h.AddIndex(500, 5) // AddIndex
	var o histogram.Histogram
	for i := range uint16(20) { // more than a few buckets: Merge's merging path
		o.AddIndex(400+i, 1)
	}
	o.AddIndex(500, math.MaxUint64)
	h.Merge(o) // merge
	if got := h.Count(); got != math.MaxUint64 {
		t.Fatalf("Count = %d, want MaxUint64", got)
	}
	bs := h.Buckets()
	if last := bs[len(bs)-1]; last.Index != 500 || last.Count != math.MaxUint64 {
		t.Fatalf("bucket 500 holds %+v, want MaxUint64", last)
	}
	for _, q := range []float64{0.5, 0.95, 1} {
		if got, _ := h.Quantile(q); got != histogram.Value(500) {
			t.Errorf("Quantile(%v) = %v, want bucket 500's %v", q, got, histogram.Value(500))
		}
	}
	if got := histogram.SatAdd(math.MaxUint64, 0); got != math.MaxUint64 {
		t.Errorf("SatAdd(MaxUint64, 0) = %d", got)
	}
	if got := histogram.SatAdd(1<<63, 1<<62); got != 3<<62 {
		t.Errorf("SatAdd(2^63, 2^62) = %d", got)
	}
}
