package pvql

import (
	"context"
	"fmt"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// The sums a Live keeps: reading rows into the totals and the buckets' detail, and dropping
// what leaves.

// forget drops the detail of the buckets that no longer keep it.
func (l *Live) forget(sc *liveScan) {
	for t, b := range sc.buckets {
		if b.groups != nil && !sc.detailed(t) {
			for _, m := range b.groups {
				l.kept -= len(m)
			}
			for _, ms := range b.seconds {
				for _, m := range ms {
					l.kept -= len(m)
				}
			}
			b.groups, b.seconds = nil, nil
		}
	}
}

// statementMaps returns n empty group maps, one per statement.
func statementMaps(n int) []map[gkey]sums {
	out := make([]map[gkey]sums, n)
	for i := range out {
		out[i] = map[gkey]sums{}
	}
	return out
}

// dropSeconds drops from b the seconds before from, and their sums from b and the totals.
func (l *Live) dropSeconds(sc *liveScan, b *bucket, from int64) {
	for sec, ms := range b.seconds {
		if sec >= from {
			continue
		}
		for i, m := range ms {
			for k, s := range m {
				l.kept += subtract(b.groups[i], k, s) + subtract(sc.stmts[i].total, k, s)
			}
			l.kept -= len(m)
		}
		delete(b.seconds, sec)
	}
}

// subtract takes s from the sums of group k in m, removing the group when no record is left;
// it returns -1 when it did, else 0.
func subtract(m map[gkey]sums, k gkey, s sums) int {
	t := m[k]
	for j := range t {
		t[j] -= s[j]
	}
	if t[records.SumRecords] == 0 {
		delete(m, k)
		return -1
	}
	m[k] = t
	return 0
}

// clear subtracts the sums of b from the totals and empties b.
func (l *Live) clear(sc *liveScan, b *bucket) {
	for i, m := range b.groups {
		for k, s := range m {
			l.kept += subtract(sc.stmts[i].total, k, s)
		}
		l.kept -= len(m)
		clear(m)
	}
	for _, ms := range b.seconds {
		for _, m := range ms {
			l.kept -= len(m)
		}
	}
	b.seconds = nil
}

// read reads r of the scan and adds or subtracts each group's sums in its bucket (and its
// second, for a fine read) and in its statement's totals.
func (l *Live) read(ctx context.Context, sc *liveScan, r read) error {
	at := 0 // the statement the error names
	p := sc.plan
	if r.fine {
		p = sc.fine
	}
	err := l.e.store.Read(ctx, p, r.from, r.to, func(row *records.Row) error {
		at = row.Query
		ls := sc.stmts[row.Query]
		n := len(row.Keys) - 1
		var own, sec map[gkey]sums // the bucket's detail and its second's, when kept
		if !r.totals {
			t := int64(row.Keys[n].Lo) // the point of the row's bucket, or of its second
			if r.fine {
				t = sc.point(t - 1)
			}
			b := sc.buckets[t]
			if b == nil || b.groups == nil && r.sign < 0 {
				return fmt.Errorf("%w: a row of a bucket outside the period", errDrift)
			}
			if b.groups != nil {
				own = b.groups[row.Query]
			}
			if r.fine && b.groups != nil {
				if b.seconds == nil {
					b.seconds = map[int64][]map[gkey]sums{}
				}
				s := int64(row.Keys[n].Lo) - 1
				if b.seconds[s] == nil {
					b.seconds[s] = statementMaps(len(sc.stmts))
				}
				sec = b.seconds[s][row.Query]
			}
		}
		var k gkey
		setKey(ls.slots, &k, row.Keys)
		var added int
		for _, m := range [...]map[gkey]sums{ls.total, own, sec} {
			if m == nil {
				continue
			}
			d, err := ls.add(m, k, row, r.sign)
			if err != nil {
				return err
			}
			added += d
		}
		if l.kept += added; l.e.maxGroups > 0 && l.kept > l.e.maxGroups {
			return errKeepTooMany
		}
		return l.res.need(l.kept)
	})
	if err != nil {
		return fmt.Errorf("pvql: statement %d: %w", sc.index[at], err)
	}
	return nil
}
