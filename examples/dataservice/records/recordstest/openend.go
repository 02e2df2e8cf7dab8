package recordstest

import (
	"context"
	"fmt"
	"maps"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// CheckOpenEnd checks the reads whose period ends past the newest record, which a store may
// read to the end of the bucket of its coarsest rollup (records.Plan.OpenEnd): each counts the
// records of its period and none after, whether the period ends past the newest record, at it
// or before it, also once a record newer than the period's end has come, by application and
// by 10-minute bucket. at, a multiple of 3600, must be later than every record s holds: the
// check ingests records from 30 seconds before it to 31 minutes after.
func CheckOpenEnd(t *testing.T, s records.Store, at int64) {
	t.Helper()
	ctx := context.Background()
	var recs []records.Record
	ingest := func(times ...int64) {
		t.Helper()
		batch := Batch(len(times), at)
		for i, off := range times {
			batch[i].Time = at + off
			batch[i].Application = []string{"https", "dns"}[i%2]
		}
		if err := s.Ingest(ctx, batch); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, batch...)
	}
	byApp := &records.Query{Groups: []records.Group{{Column: records.ColApplication}}, Sums: []records.Sum{records.SumRecords}}
	byTime := &records.Query{Groups: []records.Group{{Column: records.ColTime, Bucket: 600}}, Sums: []records.Sum{records.SumRecords}}
	check := func(what string, from, to int64) {
		t.Helper()
		from, to = at+from, at+to
		for _, q := range []*records.Query{byApp, byTime} {
			want := map[string]uint64{}
			for _, r := range recs {
				if r.Time >= from && r.Time < to {
					k := r.Application
					if q == byTime {
						k = fmt.Sprint(r.Time - r.Time%600 + 600)
					}
					want[k]++
				}
			}
			got := map[string]uint64{}
			err := s.Read(ctx, s.Compile(q), from, to, func(r *records.Row) error {
				k := r.Keys[0].Str
				if q == byTime {
					k = fmt.Sprint(r.Keys[0].Lo)
				}
				got[k] += r.Sums[0]
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			maps.DeleteFunc(got, func(_ string, n uint64) bool { return n == 0 })
			if !maps.Equal(got, want) {
				t.Errorf("%s, by %s over [%d, %d): %v, want %v", what, q.Groups[0].Column.Name(), from, to, got, want)
			}
		}
	}
	ingest(-30, 5, 605, 610, 1205)
	check("up to the newest record", -3600, 1206)
	check("past the newest record", -3600, 1800)
	check("ending at the newest record", -3600, 1205)
	check("ending before the newest record", -20, 608)
	ingest(1805, 1860)
	check("ending before records come since", -20, 1800)
	check("past them", -20, 3600)
}
