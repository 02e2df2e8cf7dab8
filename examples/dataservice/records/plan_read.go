package records

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/fnapi/fnapi/examples/dataservice/histogram"
)

// resultRows is what both drivers' query results offer.
type resultRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// NumContextColumns is the number of context columns (Column.Context).
const NumContextColumns = int(ColOutIfAlias-ColClientZone) + 1

// ContextValues are the values of a context's columns (Column.Context), in column order.
type ContextValues [NumContextColumns]Value

// ContextNames returns the values of the context numbered id (Dialect.ContextNumber); a
// store that numbers contexts passes one to Scan.
type ContextNames func(id uint64) (*ContextValues, error)

// Scan reads every row of rs into dests, decodes it from vals (dests themselves, or what they
// point to) and calls fn with it once for each query the row answers. names names the context
// numbers of a plan's rows (Dialect.ContextNumber); nil for a dialect without.
func (p *Plan) Scan(rs resultRows, dests, vals []any, names ContextNames, fn func(*Row) error) error {
	var r Row
	for rs.Next() {
		if err := rs.Scan(dests...); err != nil {
			return fmt.Errorf("records: read: %w", err)
		}
		if err := p.name(vals, &r, names); err != nil {
			return err
		}
		if err := p.emit(vals, &r, fn); err != nil {
			return err
		}
	}
	if err := rs.Err(); err != nil {
		return fmt.Errorf("records: read: %w", err)
	}
	return nil
}

// SQL returns the statement of a part of a plan (Each), with a "?" for each argument of Bind.
func (p *Plan) SQL() string { return p.query }

// KeyKinds returns the kinds of the key columns a part of a plan selects, in order (an address
// as two KindUint64).
func (p *Plan) KeyKinds() []Kind { return p.keyCols }

// NumSums returns the number of sum columns a part of a plan selects after its keys.
func (p *Plan) NumSums() int { return p.sums }

// NumHists returns the number of histogram columns a part of a plan selects after its sums:
// arrays of entries (hist.go), scanned as []uint64 or []any of uint64.
func (p *Plan) NumHists() int { return p.hists }

// Each calls fn with each part of p in turn (one SELECT each): p itself when it has none.
func (p *Plan) Each(fn func(*Plan) error) error {
	if len(p.parts) == 0 {
		return fn(p)
	}
	for _, part := range p.parts {
		if err := fn(part); err != nil {
			return err
		}
	}
	return nil
}

// Width is the number of columns of the plan's rows.
func (p *Plan) Width() int {
	w := len(p.keyCols) + p.sums + p.hists
	if p.setCol {
		w++
	}
	if p.numbered {
		w++
	}
	return w
}

// name sets r.context to the context of the row in vals: nil for a row of a plan that is not
// numbered or of context number 0 (a rollup's row), which holds its context keys itself.
func (p *Plan) name(vals []any, r *Row, names ContextNames) error {
	r.context = nil
	if !p.numbered {
		return nil
	}
	id := ToUint64(vals[p.Width()-1]) // after the GROUPING() column, if any
	if id == 0 {
		return nil
	}
	if names == nil {
		return errors.New("records: a numbered plan read without ContextNames")
	}
	vs, err := names(id)
	if err != nil {
		return fmt.Errorf("records: read: the context of number %d: %w", id, err)
	}
	r.context = vs
	return nil
}

// emit decodes one result row scanned into vals (values or pointers to them; NULL is nil) and
// calls fn with it once for each query its sets answer. An error of fn is returned as is.
func (p *Plan) emit(vals []any, r *Row, fn func(*Row) error) error {
	if !p.setCol {
		return p.emitSet(&p.sets[0], vals, r, fn)
	}
	for _, si := range p.setOf[ToUint64(vals[len(p.keyCols)+p.sums+p.hists])] {
		if err := p.emitSet(&p.sets[si], vals, r, fn); err != nil {
			return err
		}
	}
	return nil
}

// emitSet calls fn with the row in vals once for each query s answers.
func (p *Plan) emitSet(s *planSet, vals []any, r *Row, fn func(*Row) error) error {
	r.Keys = r.Keys[:0]
	for gi, g := range s.groups {
		c := s.cols[gi]
		switch {
		case r.context != nil && g.Bucket == 0 && g.Column.Context():
			r.Keys = append(r.Keys, r.context[g.Column-ColClientZone])
		case g.Bucket > 0:
			r.Keys = append(r.Keys, Value{Lo: ToUint64(vals[c])})
		case g.Column.Kind() == KindAddr:
			r.Keys = append(r.Keys, Value{Hi: ToUint64(vals[c]), Lo: ToUint64(vals[c+1])})
		case g.Column.Kind() == KindString || g.Column.List():
			var v Value
			switch s := vals[c].(type) {
			case string:
				v.Str = s
			case *string:
				v.Str = *s
			}
			r.Keys = append(r.Keys, v)
		default:
			r.Keys = append(r.Keys, Value{Lo: ToUint64(vals[c])})
		}
	}
	for _, a := range s.answers {
		r.Query = a.query
		r.Sums = r.Sums[:0]
		for _, c := range a.sums {
			r.Sums = append(r.Sums, ToUint64(vals[c]))
		}
		r.Hists = r.Hists[:0]
		for _, c := range a.hists {
			var h histogram.Histogram
			switch v := vals[c].(type) {
			case []uint64:
				AddHist(&h, v)
			case *[]uint64:
				AddHist(&h, *v)
			case []any:
				// A group's entries from DuckDB, unmerged: counted by index first, so that each
				// bucket is one insertion.
				var counts [histogram.Buckets]uint64
				addEntries(&counts, v)
				h.AddCounts(&counts)
			case map[string]any:
				// DuckDB's from a union (its HistUnion): the entries of the branches over the
				// records and over rollups that keep arrays, and the histograms as bytes of
				// those that keep bytes (Rollup.HistBytes).
				var counts [histogram.Buckets]uint64
				es, _ := v["e"].([]any)
				addEntries(&counts, es)
				bs, _ := v["b"].([]any)
				for _, b := range bs {
					b, _ := b.([]byte)
					if err := AddHistBytes(&counts, b); err != nil {
						return err
					}
				}
				h.AddCounts(&counts)
			}
			r.Hists = append(r.Hists, h)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

// addEntries adds the counts of histogram entries es (uint64s, any order) to counts by index,
// saturating (histogram.SatAdd).
func addEntries(counts *[histogram.Buckets]uint64, es []any) {
	for _, e := range es {
		e := ToUint64(e)
		i := min(e&HistIndexMask, histogram.Buckets-1)
		counts[i] = histogram.SatAdd(counts[i], e>>HistShift)
	}
}

// maxReaders is the most SELECTs of one Read that run at once: the parts of a dashboard (its
// statements of other rollups or of another Where) read side by side.
const maxReaders = 4

// piece is one SELECT of a Read: a plan over the period.
type piece struct {
	plan     *Plan
	from, to int64
}

// pieces returns the SELECTs that read p over [from, to), one for each part.
func (p *Plan) pieces(from, to int64) []piece {
	var out []piece
	p.Each(func(part *Plan) error {
		out = append(out, piece{part, from, to})
		return nil
	})
	return out
}

// ReadParts runs read on each part of p (one SELECT each) over [from, to), up to maxReaders
// (4) at once, and calls fn with the rows they read, one call at a time. The first error stops
// the other reads and is returned. An engine whose reads may run side by side calls it from
// Read.
func (p *Plan) ReadParts(ctx context.Context, from, to int64, read func(ctx context.Context, part *Plan, from, to int64, fn func(*Row) error) error, fn func(*Row) error) error {
	return readPieces(ctx, p.pieces(from, to), func(ctx context.Context, pc piece, fn func(*Row) error) error {
		return read(ctx, pc.plan, pc.from, pc.to, fn)
	}, fn)
}

// readPieces runs read on each of ps, up to maxReaders at once, and calls fn with the rows
// they read, one call at a time. The first error stops the other reads and is returned.
func readPieces(ctx context.Context, ps []piece, read func(context.Context, piece, func(*Row) error) error, fn func(*Row) error) error {
	if len(ps) == 1 {
		return read(ctx, ps[0], fn)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
	)
	fail := func(err error) { // with mu held
		if first == nil {
			first = err
			cancel()
		}
	}
	one := func(r *Row) error {
		mu.Lock()
		defer mu.Unlock()
		if first != nil {
			return errStopped
		}
		err := fn(r)
		if err != nil {
			fail(err)
		}
		return err
	}
	sem := make(chan struct{}, maxReaders)
	for _, pc := range ps {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := read(ctx, pc, one); err != nil {
				mu.Lock()
				fail(err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return first
}

// errStopped ends a read whose Read failed in another read already; it is never returned.
var errStopped = errors.New("records: read stopped")
