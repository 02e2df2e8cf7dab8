package recordstest

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// RouteBatch returns n records over the minute from at (one a second) whose sides carry the AS
// paths and communities of the routes covering them (records.Place), some none: a route of
// the router's own AS (no path), a prepended path, standard and large communities.
func RouteBatch(n int, at int64) []records.Record {
	routes := []records.Place{{}, {ASPath: []uint32{64500, 64510}, Communities: []string{"64500:100"}},
		{ASPath: []uint32{64501, 64501, 64501, 64520}, Communities: []string{"65000:100", "65000:200", "4200000000:1:2"}},
		{Communities: []string{"65000:200"}}, {ASPath: []uint32{4200000000}}}
	out := Batch(n, at)
	for i := range out {
		r := &out[i]
		r.Time = at + int64(i%60)
		r.Server.ASPath, r.Server.Communities = routes[i%len(routes)].ASPath, routes[i%len(routes)].Communities
		c := routes[(i/2)%len(routes)]
		r.Client.ASPath, r.Client.Communities = c.ASPath, c.Communities
	}
	return out
}

// CheckRoutes checks that s keeps the routes of records: it ingests RouteBatch(60) at time at
// (a whole minute s holds no other record of), then a batch of records without routes over the
// same minute, and reads the record count back grouped by each route key (the whole list, with
// the origin's AS number), filtered by an AS in the path (=), its absence (!=), communities
// (IN) and the empty list (the query language's null), over the whole minute and its first 30
// seconds.
func CheckRoutes(t *testing.T, s records.Store, at int64) {
	t.Helper()
	ctx := context.Background()
	recs := RouteBatch(60, at)
	plain := Batch(10, at)
	for _, b := range [][]records.Record{recs, plain} {
		if err := s.Ingest(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	recs = append(recs, plain...)
	conds := []cond{
		{"all", nil, func(*records.Record) bool { return true }},
		{"server AS 64501 in path", records.Compare{Column: records.ColServerASPath, Op: records.Eq, Value: records.Value{Lo: 64501}},
			func(r *records.Record) bool { return slices.Contains(r.Server.ASPath, 64501) }},
		{"client AS 4200000000 not in path", records.Compare{Column: records.ColClientASPath, Op: records.Ne, Value: records.Value{Lo: 4200000000}},
			func(r *records.Record) bool { return !slices.Contains(r.Client.ASPath, 4200000000) }},
		{"server communities IN", records.In{Column: records.ColServerCommunities, Values: []records.Value{{Str: "64500:100"}, {Str: "4200000000:1:2"}}},
			func(r *records.Record) bool {
				return slices.Contains(r.Server.Communities, "64500:100") || slices.Contains(r.Server.Communities, "4200000000:1:2")
			}},
		{"client without communities", records.Compare{Column: records.ColClientCommunities, Op: records.Eq},
			func(r *records.Record) bool { return len(r.Client.Communities) == 0 }},
		{"server with a path", records.Compare{Column: records.ColServerASPath, Op: records.Ne},
			func(r *records.Record) bool { return len(r.Server.ASPath) > 0 }},
	}
	groups := [][]records.Column{
		{records.ColClientASPath}, {records.ColServerASPath, records.ColServerCommunities},
		{records.ColClientCommunities}, {records.ColServerCommunities, records.ColProtocol},
	}
	checkGroups(t, s, at, recs, groups, conds, func(r *records.Record, cols []records.Column) string {
		var vs []records.Value
		for _, col := range cols {
			vs = append(vs, col.Of(r))
		}
		return fmt.Sprint(valuesKey(vs))
	})
}
