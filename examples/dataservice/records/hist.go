package records

import (
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
