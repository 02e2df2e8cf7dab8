package api_test

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/fnapi/fnapi/internal/leaf"

	"github.com/fnapi/fnapi/examples/dataservice/api"
)

// TestImports checks that a Go client of the service pulls neither the server nor a driver:
// only fnapi's declarations, error codes and versions, and the standard library.
func TestImports(t *testing.T) {
	leaf.Check(t, "github.com/fnapi/fnapi/apierr", "github.com/fnapi/fnapi/version", "github.com/fnapi/fnapi/decl",
		"github.com/fnapi/fnapi/auth/authapi", "github.com/fnapi/fnapi/examples/dataservice/api")
}

func TestRowJSON(t *testing.T) {
	r := api.Row{Keys: []any{"10.0.0.1", int64(443)}, Values: []float64{1650, math.NaN(), 0.5}}
	b, err := json.Marshal(r)
	if err != nil || string(b) != `[["10.0.0.1",443],[1650,null,0.5]]` {
		t.Fatalf("Marshal = %s, %v", b, err)
	}
	var back api.Row
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Keys, []any{"10.0.0.1", 443.0}) || back.Values[0] != 1650 ||
		!math.IsNaN(back.Values[1]) || back.Values[2] != 0.5 {
		t.Fatalf("Unmarshal = %+v", back)
	}
	for _, bad := range []string{`{}`, `[]`, `[[],[],[]]`, `[{},[]]`, `[[],["x"]]`, `[[],{}]`, `null`} {
		if err := json.Unmarshal([]byte(bad), &back); err == nil {
			t.Errorf("Unmarshal(%s) accepted", bad)
		}
	}
}

// FuzzRowJSON checks that decoding a row never panics, and that a row decoded encodes to JSON
// that decodes to the same row.
func FuzzRowJSON(f *testing.F) {
	for _, s := range []string{`[["a",1],[2,null]]`, `[[],[]]`, `[[null,true,{"x":1}],[1e300,-0]]`, `[`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var r api.Row
		if json.Unmarshal(b, &r) != nil {
			return
		}
		enc, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("Marshal of %+v: %v", r, err)
		}
		var again api.Row
		if err := json.Unmarshal(enc, &again); err != nil {
			t.Fatalf("%s does not decode: %v", enc, err)
		}
		enc2, _ := json.Marshal(again)
		if string(enc) != string(enc2) {
			t.Fatalf("round trip %s -> %s", enc, enc2)
		}
	})
}

// TestResultJSON checks that a Result encodes as its fields would one by one: an object of its
// rows (each as Row encodes it) and its meta.
func TestResultJSON(t *testing.T) {
	rows := []api.Row{
		{Keys: []any{int64(1700000060), "a<b>&\"c\""}, Values: []float64{1, math.NaN()}},
		{Keys: []any{int64(-60), 2.5, nil, true}, Values: []float64{1e-9, math.Inf(1), 1e21, -0.25}},
	}
	meta := api.Meta{AccumulatedTime: 86400, Elapsed: 0.0125, Sorted: true}
	for _, r := range []api.Result{{Data: rows, Meta: meta}, {Data: []api.Row{}}, {Data: rows[:1]}} {
		got, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		fields, err := json.Marshal(map[string]any{"data": r.Data, "meta": r.Meta})
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(fields) {
			t.Errorf("Marshal = %s, want %s", got, fields)
		}
	}
	if b, err := json.Marshal(api.Result{Data: []api.Row{{Keys: []any{make(chan int)}}}}); err == nil {
		t.Errorf("a key JSON cannot encode gave %s", b)
	}
}
