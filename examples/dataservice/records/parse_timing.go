package records

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/fnapi/fnapi/examples/dataservice/histogram"
	"github.com/fnapi/fnapi/internal/jsonobject"
)

// parseTiming parses the optional time fields[name], an average in seconds (a number, or null
// for none), and fields[name+"_samples"], the number of samples it averages (1 when absent; at
// least 1 with a time, 0 or absent without).
func parseTiming(fields map[string]json.RawMessage, prefix, name string) (Timing, error) {
	samples := uint64(1)
	v, has := fields[name]
	has = has && string(bytes.TrimSpace(v)) != "null"
	if sv, ok := fields[name+"_samples"]; ok {
		n, err := count(sv)
		if err != nil {
			return Timing{}, named(err, prefix+name+"_samples")
		}
		switch {
		case n == 0 && has:
			return Timing{}, &RecordError{Field: prefix + name + "_samples", Reason: "0 with a time (at least 1)"}
		case n > 0 && !has:
			return Timing{}, &RecordError{Field: prefix + name + "_samples", Reason: "samples without " + prefix + name}
		}
		samples = n
	}
	if !has {
		if hv, ok := fields[name+"_hist"]; ok && string(bytes.TrimSpace(hv)) != "null" {
			return Timing{}, &RecordError{Field: prefix + name + "_hist", Reason: "a histogram without " + prefix + name}
		}
		return Timing{}, nil
	}
	var avg float64
	if t := bytes.TrimSpace(v); len(t) == 0 || t[0] != '-' && (t[0] < '0' || t[0] > '9') || json.Unmarshal(t, &avg) != nil {
		return Timing{}, &RecordError{Field: prefix + name, Reason: "not a number of seconds"}
	}
	if avg < 0 {
		return Timing{}, &RecordError{Field: prefix + name, Reason: "negative"}
	}
	t, ok := TimingOf(avg, samples)
	if !ok {
		return Timing{}, &RecordError{Field: prefix + name, Reason: "its samples sum to more than 2^53-1 microseconds"}
	}
	if hv, ok := fields[name+"_hist"]; ok && string(bytes.TrimSpace(hv)) != "null" {
		var err error
		if t.Hist, err = parseHist(hv, samples); err != nil {
			return Timing{}, named(err, prefix+name+"_hist")
		}
	}
	return t, nil
}

// parseHist parses a time's optional histogram: [[index, count], ...], its non-empty buckets
// (package histogram's indexes, 0..Buckets-1) by increasing index, whose counts add up to the
// time's samples.
//
// Its pairs are read in place, in one pass (jsonobject.Elements) that also checks v is valid
// JSON (else it is not such a list, whatever pair is wrong first); past the first wrong pair
// they are only scanned, so that a list of millions costs no memory.
func parseHist(v json.RawMessage, samples uint64) (histogram.Histogram, error) {
	notPairs := &RecordError{Reason: "not a list of [index, count] pairs"}
	t := bytes.TrimSpace(v)
	if len(t) == 0 || t[0] != '[' {
		return histogram.Histogram{}, notPairs
	}
	var h histogram.Histogram
	var total uint64
	last := -1
	var bad error
	done := false // a pair was wrong, or the counts passed the samples: scan the rest only
	valid := jsonobject.Elements(t, func(p []byte) bool {
		if done {
			return true
		}
		var pair [2][]byte
		size := 0 // the pair's, counted to 3
		if t := bytes.TrimSpace(p); len(t) > 0 && t[0] == '[' {
			jsonobject.Elements(t, func(e []byte) bool {
				if size < 2 {
					pair[size] = e
				}
				size++
				return size <= 2
			})
		}
		if size != 2 {
			bad, done = notPairs, true
			return true
		}
		i, err := integer(pair[0])
		if err != nil || i < 0 || i >= histogram.Buckets {
			bad, done = &RecordError{Reason: fmt.Sprintf("a bucket index not an integer 0..%d", histogram.Buckets-1)}, true
			return true
		}
		if int(i) <= last {
			bad, done = &RecordError{Reason: "bucket indexes not increasing"}, true
			return true
		}
		n, err := count(pair[1])
		if err != nil || n == 0 {
			bad, done = &RecordError{Reason: "a bucket count not an integer 1..2^53-1"}, true
			return true
		}
		if total += n; total > samples {
			done = true
			return true
		}
		h.AddIndex(uint16(i), n)
		last = int(i)
		return true
	})
	switch {
	case !valid:
		return histogram.Histogram{}, notPairs
	case bad != nil:
		return histogram.Histogram{}, bad
	}
	if total != samples {
		return histogram.Histogram{}, &RecordError{Reason: fmt.Sprintf("its counts add up to %d, not the %d samples", total, samples)}
	}
	return h, nil
}
