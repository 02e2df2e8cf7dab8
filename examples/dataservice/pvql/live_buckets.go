package pvql

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// A Live divides the period of each scan into about targetBuckets buckets of whole minutes,
// and starts afresh when the period grows past maxBuckets of them. It keeps the sums of each
// group per bucket (the bucket's detail) for the first bucket and the recentBuckets last ones,
// where late records land; the others are in the totals only.
const (
	targetBuckets = 64
	maxBuckets    = 256
	recentBuckets = 4
)

// bucketWidth is the width of the buckets of period: whole minutes (the rollup's width, so
// that whole buckets read from it), about targetBuckets of them.
func bucketWidth(period [2]int64) int64 {
	const minute = 60
	length := max(period[1]-period[0], 0)
	return max((length/targetBuckets+minute-1)/minute, 1) * minute
}

// liveScan is the statements of one period in a Live, read together as Query reads them.
type liveScan struct {
	stmts        []*liveStmt
	index        []int // each statement's number, from 1
	plan         *records.Plan
	fine         *records.Plan // plan with a bucket of one second, for the first bucket
	since, until int64         // the period of the answer being made
	width        int64
	buckets      map[int64]*bucket // by their point T: bucket T holds times [T-width, T)
}

// bucket is the times from <= t < to of a bucket that the totals count, the part of the
// bucket within the period when it was read (from == to: none), and with its detail the sums
// of each statement's groups over them. The first bucket of the period, which its start moves
// through, also holds them per second, so that the seconds the period loses are dropped
// without reading them.
type bucket struct {
	from, to int64
	groups   []map[gkey]sums           // by statement of the scan; nil: no detail
	seconds  map[int64][]map[gkey]sums // by second, then statement; nil but in the first bucket
}

// errStale is why a Live reads its period afresh: a write touched a bucket it keeps no
// detail of, so the totals cannot be corrected by that bucket alone.
var errStale = errors.New("pvql: a write touched a bucket kept in the totals only")

// detailed reports whether the bucket of point t keeps its detail in the scan's period.
func (sc *liveScan) detailed(t int64) bool {
	return t == sc.point(sc.since) || t > sc.point(sc.until-1)-recentBuckets*sc.width
}

// read is a part of a scan's period to read and add (sign 1) or subtract (sign -1), per
// second (fine) or per bucket, in the totals and the buckets' detail or in the totals only.
type read struct {
	from, to int64
	sign     int
	fine     bool
	totals   bool
}

// subtracted is a part of a scan's period whose records were subtracted.
type subtracted struct {
	sc *liveScan
	read
}

// point is the point T of the bucket holding time t.
func (sc *liveScan) point(t int64) int64 {
	m := ((t % sc.width) + sc.width) % sc.width
	return t - m + sc.width
}

// update moves the scan's kept sums to its period [since, until), given the times changed
// since the last answer: a bucket whose counted part changed is read again whole (errStale
// when it keeps no detail); of the others the parts the period gained are read and added,
// those it lost dropped (the first bucket's seconds) or read and subtracted (a period that
// moved back, and the buckets it left without their detail); a bucket the period's start
// enters is read per second. It returns the parts it subtracted.
func (l *Live) update(ctx context.Context, sc *liveScan, changed []records.Span) ([]subtracted, error) {
	var reads []read
	first := sc.point(sc.since)
	for t, b := range sc.buckets {
		from, to := max(t-sc.width, sc.since), min(t, sc.until)
		dirty := b.from >= b.to || b.to <= from || to <= b.from || records.Overlaps(changed, b.from, b.to)
		switch {
		case dirty && b.groups == nil && b.from < b.to:
			return nil, errStale
		case from >= to && b.groups == nil:
			reads = append(reads, read{b.from, b.to, -1, false, true})
			delete(sc.buckets, t)
		case from >= to:
			l.clear(sc, b)
			delete(sc.buckets, t)
		case dirty:
			l.clear(sc, b)
			if b.groups == nil && sc.detailed(t) {
				b.groups = statementMaps(len(sc.stmts))
			}
			reads = append(reads, read{from, to, 1, t == first, false})
		case b.seconds != nil && from >= b.from && to >= b.to:
			l.dropSeconds(sc, b, from)
			reads = append(reads, read{b.to, to, 1, true, false})
		case t == first || b.seconds != nil:
			// The start entered the bucket (or moved back): read it per second. A bucket
			// without detail is subtracted from the totals as they count it first.
			if b.groups == nil {
				reads = append(reads, read{b.from, b.to, -1, false, true})
				b.groups = statementMaps(len(sc.stmts))
			} else {
				l.clear(sc, b)
			}
			reads = append(reads, read{from, to, 1, t == first, false})
		default:
			reads = append(reads, edges(b.from, from, 1, b.groups == nil), edges(b.to, to, -1, b.groups == nil))
		}
		b.from, b.to = from, to
	}
	if sc.since < sc.until {
		for t := first; t-sc.width < sc.until; t += sc.width {
			if sc.buckets[t] == nil {
				b := &bucket{from: max(t-sc.width, sc.since), to: min(t, sc.until)}
				if sc.detailed(t) {
					b.groups = statementMaps(len(sc.stmts))
				}
				sc.buckets[t] = b
				reads = append(reads, read{b.from, b.to, 1, t == first, false})
			}
		}
	}
	reads = merge(reads)
	var subs []subtracted
	for _, r := range reads {
		if err := l.read(ctx, sc, r); err != nil {
			return nil, err
		}
		if r.sign < 0 {
			subs = append(subs, subtracted{sc, r})
		}
	}
	return subs, nil
}

// edges is the read that moves one edge of a bucket's kept part from was to now: the
// records between them added when the part grows that way, subtracted when it shrinks. lead
// is 1 for a start edge (moving it earlier grows the part), -1 for an end edge; totals is
// whether the bucket keeps no detail.
func edges(was, now int64, lead int, totals bool) read {
	switch {
	case was == now:
		return read{}
	case now < was:
		return read{now, was, lead, false, totals}
	}
	return read{was, now, -lead, false, totals}
}

// merge drops empty reads and joins those that meet with the same sign, in time order.
func merge(rs []read) []read {
	rs = slices.DeleteFunc(rs, func(r read) bool { return r.from >= r.to })
	slices.SortFunc(rs, func(a, b read) int { return cmp.Compare(a.from, b.from) })
	var out []read
	for _, r := range rs {
		if n := len(out); n > 0 && out[n-1].to == r.from && out[n-1].sign == r.sign && out[n-1].fine == r.fine && out[n-1].totals == r.totals {
			out[n-1].to = r.to
			continue
		}
		out = append(out, r)
	}
	return out
}

// settle reads again, whole, the buckets of the parts subtracted that a write touched since
// the answer took its changes: the records subtracted may then not be those added before. The
// bucket stays changed for the next answer too, which reads it again. A part subtracted from
// the totals alone (a bucket without detail) cannot be corrected so: errStale.
func (l *Live) settle(ctx context.Context, subs []subtracted) error {
	if len(subs) == 0 {
		return nil
	}
	pending := l.watch.Peek()
	for _, s := range subs {
		if !records.Overlaps(pending, s.from, s.to) {
			continue
		}
		if s.totals {
			return errStale
		}
		first := s.sc.point(s.sc.since)
		for t := s.sc.point(s.from); t-s.sc.width < s.to; t += s.sc.width {
			if b := s.sc.buckets[t]; b != nil {
				l.clear(s.sc, b)
				if err := l.read(ctx, s.sc, read{b.from, b.to, 1, t == first, false}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
