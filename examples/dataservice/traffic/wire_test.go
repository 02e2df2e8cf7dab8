package traffic

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/pvql"
)

// TestResultJSON checks pvql's results as the query function sends them: converted to api's
// and marshaled, each row as [keys, values], NaN and infinities as null.
func TestResultJSON(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		r    pvql.Result
		want string
	}{
		{"no rows", pvql.Result{Data: []pvql.Row{}, Meta: pvql.Meta{AccumulatedTime: 3600, Elapsed: 0.5}},
			`{"data":[],"meta":{"accumulated_time":3600,"elapsed":0.5,"sorted":false}}`},
		{"no keys", pvql.Result{Data: []pvql.Row{{Keys: []any{}, Values: []float64{0, math.NaN()}}}, Meta: pvql.Meta{Sorted: true}},
			`{"data":[[[],[0,null]]],"meta":{"accumulated_time":0,"elapsed":0,"sorted":true}}`},
		{"key kinds", pvql.Result{Data: []pvql.Row{{Keys: []any{"2001:db8::1", int64(443), "tcp", int64(47), "dns\"x", int64(-60)},
			Values: []float64{1.5, 1e21, 1e-7, -3, math.Inf(1)}}}},
			`{"data":[[["2001:db8::1",443,"tcp",47,"dns\"x",-60],[1.5,1e+21,1e-7,-3,null]]],"meta":{"accumulated_time":0,"elapsed":0,"sorted":false}}`},
		{"groups", pvql.Result{Data: []pvql.Row{}, Meta: pvql.Meta{Sorted: true, Groups: 214_861}},
			`{"data":[],"meta":{"accumulated_time":0,"elapsed":0,"sorted":true,"groups":214861}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := json.Marshal(apiResults([]pvql.Result{tc.r}))
			if err != nil {
				t.Fatal(err)
			}
			if want := "[" + tc.want + "]"; string(got) != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// TestAPIResultsShare checks that the results of several statements keep their own rows,
// read in place from pvql's rather than copied.
func TestAPIResultsShare(t *testing.T) {
	t.Parallel()
	rs := []pvql.Result{
		{Data: []pvql.Row{{Keys: []any{"a"}, Values: []float64{1}}, {Keys: []any{"b"}, Values: []float64{2}}}},
		{Data: []pvql.Row{}},
		{Data: []pvql.Row{{Keys: []any{}, Values: []float64{3}}}},
	}
	got := apiResults(rs)
	if len(got) != 3 || len(got[0].Data) != 2 || len(got[1].Data) != 0 || got[1].Data == nil || len(got[2].Data) != 1 {
		t.Fatalf("apiResults = %+v", got)
	}
	if cap(got[0].Data) != 2 || &got[2].Data[0].Values[0] != &rs[2].Data[0].Values[0] || &got[0].Data[1].Keys[0] != &rs[0].Data[1].Keys[0] ||
		got[0].Data[1].Keys[0] != "b" || got[2].Data[0].Values[0] != 3 {
		t.Errorf("the rows are not pvql's, or reach into the next result: %+v", got)
	}
	if apiResults(nil) != nil {
		t.Errorf("apiResults(nil) is not nil")
	}
}
