package records

import (
	"encoding/binary"
	"errors"
	"math"
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
// 8 bytes each, big-endian, by strictly increasing index: what the array column holds, in one
// value the driver hands over whole, where it boxes each entry of an array (BENCHMARKS.md,
// issue 42). AppendHistBytes writes it; AddHistBytes reads it; the stores' SQL writes and
// reads the same bytes where it merges a rollup's rows (compaction, retention, schema steps).
const (
	// HistEntryBytes is the size of an entry.
	HistEntryBytes = 8
	// MaxHistBytes is the size of the largest histogram: an entry per bucket.
	MaxHistBytes = histogram.Buckets * HistEntryBytes
)

// ErrHistBytes is the error of a stored histogram that is not one AppendHistBytes writes.
var ErrHistBytes = errors.New("records: a stored histogram is corrupt")

// AppendHistBytes appends h's entries as bytes to dst, each count saturated at MaxHistCount.
func AppendHistBytes(dst []byte, h histogram.Histogram) []byte {
	for _, b := range h.Buckets() {
		dst = binary.BigEndian.AppendUint64(dst, min(b.Count, MaxHistCount)<<HistShift|uint64(b.Index))
	}
	return dst
}

// AddHistBytes adds the counts of the histogram stored as bytes in b (AppendHistBytes) to
// counts, by bucket index, saturating (histogram.SatAdd). A value longer than MaxHistBytes, not a whole number of entries,
// or whose indexes do not strictly increase below histogram.Buckets is ErrHistBytes, and
// counts is left as it was.
func AddHistBytes(counts *[histogram.Buckets]uint64, b []byte) error {
	if len(b) > MaxHistBytes || len(b)%HistEntryBytes != 0 {
		return ErrHistBytes
	}
	next := uint64(0) // the least index the next entry may have
	for i := 0; i < len(b); i += HistEntryBytes {
		e := binary.BigEndian.Uint64(b[i:])
		if e&HistIndexMask < next || e&HistIndexMask >= histogram.Buckets {
			return ErrHistBytes
		}
		next = e&HistIndexMask + 1
	}
	for i := 0; i < len(b); i += HistEntryBytes {
		e := binary.BigEndian.Uint64(b[i:])
		counts[e&HistIndexMask] = histogram.SatAdd(counts[e&HistIndexMask], e>>HistShift)
	}
	return nil
}
