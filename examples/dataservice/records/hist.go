package records

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"strconv"

	"github.com/fnapi/fnapi/examples/dataservice/histogram"
)

// The stores keep the histogram of each time metric of a record (Timing.Hist, package
// histogram: log-scaled buckets, at most 2 % relative error) in one array column of unsigned
// 64-bit integers, an entry per non-empty bucket: count<<HistShift | index. Summing two such
// arrays is adding the counts of equal indexes, which every engine does in SQL or the reader
// does as it reads (Row.Hists); an array keeps its entries by increasing index.
const (
	// HistShift is how far an entry's count is shifted past its bucket index (histogram.Buckets
	// is at most 1<<HistShift).
	HistShift = 10
	// HistIndexMask keeps an entry's bucket index.
	HistIndexMask = 1<<HistShift - 1
	// MaxHistCount is the largest count an entry holds: a rollup's entry, which adds up the
	// counts of many records, saturates at it (a record's count is at most MaxCount, below).
	MaxHistCount = 1<<(64-HistShift) - 1
)

// Buckets returns the distribution a store keeps for t: Hist, or when t has samples but no
// histogram (they came averaged, from ingest without one) its Samples samples in the bucket of
// their average. So every sample counts in percentiles, an averaged one at its average.
func (t Timing) Buckets() histogram.Histogram {
	if t.Hist.Count() > 0 || t.Samples == 0 {
		return t.Hist
	}
	var h histogram.Histogram
	avg, _ := t.Seconds()
	h.AddIndex(histogram.Index(avg), t.Samples)
	return h
}

// EncodeHist appends h's entries, as a store's array column keeps them, to dst, each count
// saturated at MaxHistCount.
func EncodeHist(dst []uint64, h histogram.Histogram) []uint64 {
	for _, b := range h.Buckets() {
		dst = append(dst, min(b.Count, MaxHistCount)<<HistShift|uint64(b.Index))
	}
	return dst
}

// AddHist adds the entries of a store's array column (in any order, an index several times)
// to h. An entry whose index is past the last bucket counts in the last.
func AddHist(h *histogram.Histogram, entries []uint64) {
	for _, e := range entries {
		addEntry(h, e)
	}
}

func addEntry(h *histogram.Histogram, e uint64) {
	h.AddIndex(uint16(min(e&HistIndexMask, histogram.Buckets-1)), e>>HistShift)
}

// HistEntrySQL is the SQL of the one entry of a time that came averaged, from the columns of
// its sum of microseconds and its samples: the samples in the bucket of their average, as
// Buckets puts them (but for an average on a bucket's bound to the last digit, which the SQL
// logarithm may place in the neighbouring bucket). Schema migrations fill the histograms of
// rows written before the stores kept them with it, ln naming the dialect's natural logarithm
// and u64 its unsigned 64-bit type.
func HistEntrySQL(sum, samples, ln, u64 string) string {
	avgUs := "(" + sum + " / " + samples + ")"
	minUs := strconv.FormatFloat(histogram.Min*1e6, 'g', -1, 64)
	idx := "(CASE WHEN " + avgUs + " <= " + minUs + " THEN 0 ELSE least(greatest(ceil(" + ln + "(" + avgUs + " / " + minUs + ") / " +
		strconv.FormatFloat(math.Log(histogram.Gamma), 'g', -1, 64) + "), 1), " + strconv.Itoa(histogram.Buckets-1) + ") END)"
	return "CAST(" + samples + " * " + strconv.Itoa(1<<HistShift) + " + " + idx + " AS " + u64 + ")"
}

// A rollup that keeps its histograms as bytes (Rollup.HistBytes) stores each as its entries,
// by strictly increasing index, in one value the driver hands over whole, where it boxes each
// entry of an array (BENCHMARKS.md, issue 42): a first byte, the width w of an entry (1 to 8),
// then each entry in w bytes, big-endian, w the fewest that hold the largest; the empty
// histogram is no bytes. A rollup row's counts are small, so an entry takes 2 or 3 bytes where
// it took 8 (DuckDB's schema step 19 converted those): DuckDB reads and hands over a third of the bytes.
// AppendHistBytes writes it; AddHistBytes reads it; the stores' SQL writes and reads the same
// bytes where it merges a rollup's rows (compaction, retention, schema steps).
const (
	// HistEntryBytes is the size of the widest entry.
	HistEntryBytes = 8
	// MaxHistBytes is the size of the largest histogram: the width, and an entry per bucket.
	MaxHistBytes = 1 + histogram.Buckets*HistEntryBytes
)

// ErrHistBytes is the error of a stored histogram that is not one AppendHistBytes writes.
var ErrHistBytes = errors.New("records: a stored histogram is corrupt")

// AppendHistBytes appends h's entries as bytes to dst, each count saturated at MaxHistCount.
func AppendHistBytes(dst []byte, h histogram.Histogram) []byte {
	bs := h.Buckets()
	if len(bs) == 0 {
		return dst
	}
	largest := uint64(0)
	for _, b := range bs {
		largest = max(largest, histEntry(b))
	}
	w := max(1, (bits.Len64(largest)+7)/8)
	dst = append(dst, byte(w))
	for _, b := range bs {
		e := histEntry(b)
		for k := w - 1; k >= 0; k-- {
			dst = append(dst, byte(e>>(8*k)))
		}
	}
	return dst
}

// histEntry is b's entry, its count saturated at MaxHistCount.
func histEntry(b histogram.Bucket) uint64 {
	return min(b.Count, MaxHistCount)<<HistShift | uint64(b.Index)
}

// AddHistBytes adds the counts of the histogram stored as bytes in b (AppendHistBytes) to
// counts, by bucket index, saturating (histogram.SatAdd). A value longer than MaxHistBytes,
// of a width not 1 to 8 or not a whole number of entries, or whose indexes do not strictly
// increase below histogram.Buckets is ErrHistBytes, with counts added to up to the entry
// found wrong: the caller drops them (its query fails). One pass: checking every entry first
// took 1.6 times as long (610 ns for 200 entries, 383 so).
func AddHistBytes(counts *[histogram.Buckets]uint64, b []byte) error {
	if len(b) == 0 {
		return nil
	}
	w := int(b[0])
	if len(b) > MaxHistBytes || w < 1 || w > HistEntryBytes || (len(b)-1)%w != 0 {
		return ErrHistBytes
	}
	next := uint64(0) // the least index the next entry may have
	for i := 1; i < len(b); i += w {
		e := histEntryAt(b, i, w)
		idx := e & HistIndexMask
		if idx < next || idx >= histogram.Buckets {
			return ErrHistBytes
		}
		counts[idx] = histogram.SatAdd(counts[idx], e>>HistShift)
		next = idx + 1
	}
	return nil
}

// histEntryAt is the entry of w bytes at b[i:], big-endian: read as 8 bytes where b holds
// them, a byte at a time near its end only (a byte at a time everywhere, AddHistBytes took 1.8
// times as long as with entries of 8 bytes, in the profile of the benchmark of issue 42).
func histEntryAt(b []byte, i, w int) uint64 {
	if i+8 <= len(b) {
		return binary.BigEndian.Uint64(b[i:]) >> (64 - 8*w)
	}
	e := uint64(0)
	for _, c := range b[i : i+w] {
		e = e<<8 | uint64(c)
	}
	return e
}
