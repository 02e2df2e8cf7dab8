package records

import (
	"math"
	"slices"
	"sync"
)

// Span is the times from <= t < to (Unix seconds).
type Span struct{ From, To int64 }

// maxSpans is how many disjoint spans a Watcher keeps; past it the two closest merge, so it
// may report more time as changed than was, never less.
const maxSpans = 32

// Changes tells watchers which times of a store's records changed: a store reports the span
// of times of each batch it ingests and of each deletion, once before it writes and once
// after. So a reader that takes the changes, then reads, learns of every write its read may
// have seen (reported before the write) and of every write it may have missed (reported
// after). Incremental answers of followed queries (package pvql, Live) use it to re-read
// only the times that changed. The zero value is ready; it is safe for concurrent use.
type Changes struct {
	mu       sync.Mutex
	watchers map[*Watcher]struct{}
}

// ChangeReporter is a store whose every change of the records passes through this process and
// is reported to Changes, so a reader may re-read only the times Changes reports. DuckDB is
// one (a process holds its file alone); ClickHouse is not (other nodes may write its tables),
// so a followed query there answers its whole period each time.
type ChangeReporter interface {
	Changes() *Changes
}

// Touch reports that the records with times in [from, to) change: a Store calls it before
// and after each write.
func (c *Changes) Touch(from, to int64) {
	if c == nil || from >= to {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for w := range c.watchers {
		w.add(Span{from, to})
	}
}

// BatchSpan is the span of the times of recs, which are not empty.
func BatchSpan(recs []Record) Span {
	lo, hi := recs[0].Time, recs[0].Time
	for i := range recs {
		lo, hi = min(lo, recs[i].Time), max(hi, recs[i].Time)
	}
	return Span{lo, hi + 1}
}

// TouchBefore reports a deletion of the records before t.
func (c *Changes) TouchBefore(t int64) { c.Touch(math.MinInt64, t) }

// Watch returns a Watcher of c's changes from now on; Close it when done.
func (c *Changes) Watch() *Watcher {
	w := &Watcher{c: c}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.watchers == nil {
		c.watchers = map[*Watcher]struct{}{}
	}
	c.watchers[w] = struct{}{}
	return w
}

// Watcher collects the spans of times changed since it last handed them out, merged and
// in order. Its methods are safe for concurrent use.
type Watcher struct {
	c     *Changes
	spans []Span // guarded by c.mu
}

// add merges s into w.spans; the caller holds c.mu.
func (w *Watcher) add(s Span) {
	i, _ := slices.BinarySearchFunc(w.spans, s.From, func(x Span, t int64) int {
		if x.To < t {
			return -1
		}
		return 1
	})
	j := i
	for j < len(w.spans) && w.spans[j].From <= s.To {
		s = Span{min(s.From, w.spans[j].From), max(s.To, w.spans[j].To)}
		j++
	}
	w.spans = slices.Replace(w.spans, i, j, s)
	if len(w.spans) > maxSpans {
		k := 0 // merge the two spans with the smallest gap between them
		for i := 1; i < len(w.spans)-1; i++ {
			if gap(w.spans[i], w.spans[i+1]) < gap(w.spans[k], w.spans[k+1]) {
				k = i
			}
		}
		w.spans = slices.Replace(w.spans, k, k+2, Span{w.spans[k].From, w.spans[k+1].To})
	}
}

// gap is the time between a and the later b, saturating.
func gap(a, b Span) uint64 { return uint64(b.From) - uint64(a.To) }

// Take returns the spans changed since the last Take (or Watch), and forgets them.
func (w *Watcher) Take() []Span {
	w.c.mu.Lock()
	defer w.c.mu.Unlock()
	out := w.spans
	w.spans = nil
	return out
}

// Peek returns the spans changed since the last Take, keeping them.
func (w *Watcher) Peek() []Span {
	w.c.mu.Lock()
	defer w.c.mu.Unlock()
	return slices.Clone(w.spans)
}

// Close stops w watching.
func (w *Watcher) Close() {
	w.c.mu.Lock()
	defer w.c.mu.Unlock()
	delete(w.c.watchers, w)
}

// Overlaps reports whether any of spans meets [from, to).
func Overlaps(spans []Span, from, to int64) bool {
	for _, s := range spans {
		if s.From < to && from < s.To {
			return true
		}
	}
	return false
}
