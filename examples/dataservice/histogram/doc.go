// Package histogram is a mergeable histogram of durations with log-scaled buckets: the
// response-time distribution that capture records carry and that rollups and query engines add
// up to answer p50, p95, p99 and max.
//
//	var h histogram.Histogram
//	h.Add(0.042)             // seconds
//	h.Merge(other)           // adds other's counts bucket by bucket
//	p95 := h.Quantile(0.95)  // seconds, within 2 % of a recorded value
//	b := h.AppendBinary(nil) // compact form; Decode reads it back
//
// # Buckets
//
// The buckets are fixed: bucket i > 0 holds the values v with Gamma^(i-1) < v/Min <= Gamma^i,
// where Min is one microsecond and Gamma = 1.02/0.98. Bucket 0 holds every value at or below
// Min (zero included); the last bucket, Buckets-1, holds everything above Max (about 33 hours).
// A bucket's value is 2·Min·Gamma^i/(Gamma+1), the point whose relative distance to both
// of the bucket's bounds is RelativeError (2 %): every value between Min and Max is thus
// reported within 2 % of itself. Because the buckets are the same for every histogram,
// merging is adding counts index by index, which any engine can do (a map or an array
// column summed per index), and a quantile computed from merged buckets is the same whichever
// order, engine or rollup merged them.
//
// # Quantiles
//
// Quantile(q) is the value of the bucket holding the sample of rank ceil(q·Count) (rank 1 is
// the smallest sample), the "nearest rank" definition: p50 of {1, 2, 3, 4} is 2, p95 is 4.
// Max is Quantile(1), the value of the highest non-empty bucket. Every engine that computes
// percentiles must follow this definition (Quantile is its reference).
//
// # Encoding
//
// AppendBinary writes the non-empty buckets as uvarints: their number, then for each the gap
// from the previous bucket's index (the first from -1) and the count. A histogram of one
// sample takes at most four bytes. Decode refuses anything else with ErrEncoding.
package histogram
