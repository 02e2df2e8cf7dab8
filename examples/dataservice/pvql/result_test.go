package pvql

import (
	"encoding/json"
	"math"
	"testing"
)

func TestResultJSON(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		r    Result
		want string
	}{
		{"no rows", Result{Data: []Row{}, Meta: Meta{AccumulatedTime: 3600, Elapsed: 0.5}},
			`{"data":[],"meta":{"accumulated_time":3600,"elapsed":0.5,"sorted":false}}`},
		{"no keys", Result{Data: []Row{{Keys: []any{}, Values: []float64{0, math.NaN()}}}, Meta: Meta{Sorted: true}},
			`{"data":[[[],[0,null]]],"meta":{"accumulated_time":0,"elapsed":0,"sorted":true}}`},
		{"key kinds", Result{Data: []Row{{Keys: []any{"2001:db8::1", int64(443), "tcp", int64(47), "dns\"x", int64(-60)},
			Values: []float64{1.5, 1e21, 1e-7, -3, math.Inf(1)}}}},
			`{"data":[[["2001:db8::1",443,"tcp",47,"dns\"x",-60],[1.5,1e+21,1e-7,-3,null]]],"meta":{"accumulated_time":0,"elapsed":0,"sorted":false}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(tc.r)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}
