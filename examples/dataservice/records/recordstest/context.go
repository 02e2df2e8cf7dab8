package recordstest

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// ContextBatch returns n records over the minute from at (one a second) carrying a context as the service resolves it:
// zones nested by "/" (and "" outside every zone), autonomous systems (13335 under two names,
// as a replaced GeoIP file may name it), countries, exporter and interface names.
func ContextBatch(n int, at int64) []records.Record {
	zones := []string{"", "HQ", "Customers", "Customers/ACME", "Customers/ACME/Lab", "CustomersX"}
	ases := []records.Place{{}, {ASN: 15169, ASName: "GOOGLE", Country: "US"}, {ASN: 13335, ASName: "CLOUDFLARENET", Country: "US"},
		{ASN: 13335, ASName: "CLOUDFLARE", Country: "US"}, {ASN: 3215, ASName: "Orange S.A.", Country: "FR"}}
	out := Batch(n, at)
	for i := range out {
		r := &out[i]
		r.Time = at + int64(i%60)
		r.Client.Zone = zones[i%len(zones)]
		r.Server.Place = ases[i%len(ases)]
		r.Server.Zone = zones[(i/2)%len(zones)]
		r.Client.Country = []string{"", "DE"}[i%2]
		r.Exporter, r.InIf, r.OutIf = netip.MustParseAddr("192.0.2.1"), uint32(1+i%3), 9
		r.ExporterName, r.InIfName, r.InIfAlias, r.OutIfName = "edge1", fmt.Sprintf("ge-0/0/%d", 1+i%3), "uplink", "xe-1/0/0"
	}
	return out
}

// CheckContext checks that s keeps the context of records: it ingests ContextBatch(60) at time
// at (a whole minute s holds no other record of) and reads the record count back grouped by
// each context key (the AS with its name, an interface with its name and alias), filtered by a
// zone and the zones under it (a range of names), by ASN and by country, over the whole minute
// (which rollups may answer) and over its first 30 seconds (the records).
func CheckContext(t *testing.T, s records.Store, at int64) {
	t.Helper()
	ctx := context.Background()
	recs := ContextBatch(60, at)
	if err := s.Ingest(ctx, recs); err != nil {
		t.Fatal(err)
	}
	under := records.Or{
		records.Compare{Column: records.ColClientZone, Op: records.Eq, Value: records.Value{Str: "Customers"}},
		records.Range{Column: records.ColClientZone, From: records.Value{Str: "Customers/"}, To: records.Value{Str: "Customers/" + strings.Repeat("\U0010FFFF", 64)}},
	}
	conds := []cond{
		{"all", nil, func(*records.Record) bool { return true }},
		{"client zone Customers/", under, func(r *records.Record) bool {
			return r.Client.Zone == "Customers" || strings.HasPrefix(r.Client.Zone, "Customers/")
		}},
		{"server asn 13335 or 3215", records.In{Column: records.ColServerASN, Values: []records.Value{{Lo: 13335}, {Lo: 3215}}},
			func(r *records.Record) bool { return r.Server.ASN == 13335 || r.Server.ASN == 3215 }},
		{"server country US", records.Compare{Column: records.ColServerCountry, Op: records.Eq, Value: records.Value{Str: "US"}},
			func(r *records.Record) bool { return r.Server.Country == "US" }},
	}
	groups := [][]records.Column{
		{records.ColClientZone}, {records.ColServerZone}, {records.ColServerASN, records.ColServerASName},
		{records.ColClientCountry, records.ColServerCountry}, {records.ColClientASN, records.ColClientASName},
		{records.ColExporterName}, {records.ColInIf, records.ColInIfName, records.ColInIfAlias},
		{records.ColOutIf, records.ColOutIfName, records.ColOutIfAlias},
	}
	checkGroups(t, s, at, recs, groups, conds, contextKey)
}

// cond is a condition of a check: its name, the condition, and the records it keeps.
type cond struct {
	name string
	c    records.Cond
	keep func(r *records.Record) bool
}

// checkGroups reads the record count of s grouped by each of groups, under each of conds, over
// the minute from at and its first 30 seconds, and checks it against recs (the records s holds
// over that minute), a record's group named by key.
func checkGroups(t *testing.T, s records.Store, at int64, recs []records.Record, groups [][]records.Column, conds []cond,
	key func(*records.Record, []records.Column) string) {
	t.Helper()
	for _, cols := range groups {
		for _, c := range conds {
			for _, until := range []int64{at + 60, at + 30} {
				want := map[string]uint64{}
				for i := range recs {
					if r := &recs[i]; c.keep(r) && r.Time < until {
						want[key(r, cols)]++
					}
				}
				q := &records.Query{Sums: []records.Sum{records.SumRecords}, Where: c.c}
				for _, col := range cols {
					q.Groups = append(q.Groups, records.Group{Column: col})
				}
				got := map[string]uint64{}
				err := s.Read(context.Background(), s.Compile(q), at, until, func(r *records.Row) error {
					got[fmt.Sprint(valuesKey(r.Keys))] += r.Sums[0]
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("by %v where %s until +%d: %v, want %v", names(cols), c.name, until-at, got, want)
				}
			}
		}
	}
}

// CheckContextEdges checks that s answers by the context over periods that a rollup answers in
// part and the records at either edge: three minutes of records from at (a multiple of 60),
// read over ranges that cut the first and the last minute, each group in every part. A store
// may give a group in several rows (DuckDB gives the records' rows by context number,
// records.Dialect.ContextNumber): a reader adds them up.
func CheckContextEdges(t *testing.T, s records.Store, at int64) {
	t.Helper()
	ctx := context.Background()
	var recs []records.Record
	for m := range int64(3) {
		recs = append(recs, ContextBatch(60, at+60*m)...)
	}
	if err := s.Ingest(ctx, recs); err != nil {
		t.Fatal(err)
	}
	groups := [][]records.Column{
		{records.ColServerASN}, {records.ColClientZone}, {records.ColServerCountry},
		{records.ColServerZone, records.ColApplication}, {records.ColInIfName, records.ColInIf},
	}
	for _, cols := range groups {
		for _, span := range [][2]int64{{at + 30, at + 150}, {at, at + 150}, {at + 30, at + 180}, {at + 59, at + 61}} {
			for _, bucket := range []int64{0, 60} {
				want := map[string]uint64{}
				for i := range recs {
					if r := &recs[i]; r.Time >= span[0] && r.Time < span[1] {
						k := contextKey(r, cols)
						if bucket > 0 {
							k = fmt.Sprint(r.Time-r.Time%bucket+bucket, k)
						}
						want[k]++
					}
				}
				q := &records.Query{Sums: []records.Sum{records.SumRecords}}
				if bucket > 0 {
					q.Groups = append(q.Groups, records.Group{Column: records.ColTime, Bucket: bucket})
				}
				for _, col := range cols {
					q.Groups = append(q.Groups, records.Group{Column: col})
				}
				got := map[string]uint64{}
				err := s.Read(ctx, s.Compile(q), span[0], span[1], func(r *records.Row) error {
					keys := r.Keys
					k := ""
					if bucket > 0 {
						k, keys = fmt.Sprint(keys[0].Lo), keys[1:]
					}
					got[k+fmt.Sprint(valuesKey(keys))] += r.Sums[0]
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("by %v (bucket %d) over [+%d, +%d):\n got %v\nwant %v", names(cols), bucket, span[0]-at, span[1]-at, got, want)
				}
			}
		}
	}
	// The same statements compiled together (one pass where the store groups by several key
	// sets at once), with one by application, which no context key has.
	qs := []*records.Query{{Groups: []records.Group{{Column: records.ColApplication}}, Sums: []records.Sum{records.SumRecords}}}
	for _, cols := range groups {
		q := &records.Query{Sums: []records.Sum{records.SumRecords}}
		for _, col := range cols {
			q.Groups = append(q.Groups, records.Group{Column: col})
		}
		qs = append(qs, q)
	}
	from, to := at+30, at+150
	got := make([]map[string]uint64, len(qs))
	for i := range got {
		got[i] = map[string]uint64{}
	}
	err := s.Read(ctx, s.Compile(qs...), from, to, func(r *records.Row) error {
		got[r.Query][fmt.Sprint(valuesKey(r.Keys))] += r.Sums[0]
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range qs {
		var cols []records.Column
		for _, g := range q.Groups {
			cols = append(cols, g.Column)
		}
		want := map[string]uint64{}
		for j := range recs {
			if r := &recs[j]; r.Time >= from && r.Time < to {
				want[contextKey(r, cols)]++
			}
		}
		if fmt.Sprint(got[i]) != fmt.Sprint(want) {
			t.Errorf("by %v compiled with the others over [+30, +150):\n got %v\nwant %v", names(cols), got[i], want)
		}
	}
}

// CheckContextPartial checks that s keeps batches that fill some of the context only (zones,
// without AS, country or names, as a service without GeoIP files nor SNMP stores them): it
// ingests, over the minute from at, records with a client zone and nothing else of the context
// beside records of every field, and reads both back by zone and by AS.
func CheckContextPartial(t *testing.T, s records.Store, at int64) {
	t.Helper()
	ctx := context.Background()
	zoned := Batch(4, at)
	for i := range zoned {
		zoned[i].Client.Zone = "HQ"
	}
	if err := s.Ingest(ctx, zoned); err != nil {
		t.Fatal(err)
	}
	if err := s.Ingest(ctx, ContextBatch(5, at)); err != nil { // zones "", HQ, Customers, ...; ASes
		t.Fatal(err)
	}
	for _, tt := range []struct {
		col  records.Column
		want string
	}{
		{records.ColClientZone, `map[0/"":1 0/"Customers":1 0/"Customers/ACME":1 0/"Customers/ACME/Lab":1 0/"HQ":5]`},
		{records.ColServerASN, `map[0/"":5 13335/"":2 15169/"":1 3215/"":1]`},
		{records.ColInIfName, `map[0/"":4 0/"ge-0/0/1":2 0/"ge-0/0/2":2 0/"ge-0/0/3":1]`},
	} {
		got := map[string]uint64{}
		q := &records.Query{Groups: []records.Group{{Column: tt.col}}, Sums: []records.Sum{records.SumRecords}}
		err := s.Read(ctx, s.Compile(q), at, at+60, func(r *records.Row) error {
			got[valuesKey(r.Keys)[0]] += r.Sums[0]
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != tt.want {
			t.Errorf("by %s: %v, want %s", tt.col.Name(), got, tt.want)
		}
	}
}

// contextKey is r's values of cols as valuesKey writes a Row's.
func contextKey(r *records.Record, cols []records.Column) string {
	var vs []records.Value
	for _, c := range cols {
		var rb records.RowBuilder
		row := rb.AppendRow(nil, r)
		names, _ := records.SQLColumns()
		for i, n := range names {
			if n == c.Name() {
				switch v := row[i].(type) {
				case string:
					vs = append(vs, records.Value{Str: v})
				case uint32:
					vs = append(vs, records.Value{Lo: uint64(v)})
				}
			}
		}
	}
	return fmt.Sprint(valuesKey(vs))
}

func valuesKey(vs []records.Value) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = fmt.Sprintf("%d/%q", v.Lo, v.Str)
	}
	return out
}

func names(cols []records.Column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name()
	}
	return out
}
