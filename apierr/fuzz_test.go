package apierr_test

import (
	"encoding/json"
	"maps"
	"reflect"
	"testing"

	"github.com/fnapi/fnapi/apierr"
)

// FuzzUnmarshal: any bytes a peer sends decode to an error message or to an error, never a
// panic; a decoded message encodes and decodes again to the same code and attributes, and a
// framework code gets the framework's declaration.
func FuzzUnmarshal(f *testing.F) {
	for _, s := range []string{
		`{"type":"error","error":"NOT-FOUND","name":"x"}`,
		`{"type":"error","error":"LIMIT-REACHED","limit":2,"name":"dashboards","id":"7"}`,
		`{"error":"X","type":"chunk","nested":{"a":[1,null,true]}}`,
		`{"error":""}`, `{"error":7}`, `[]`, `null`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var e apierr.Error
		if err := json.Unmarshal(data, &e); err != nil {
			return
		}
		if e.Code() == "" {
			t.Fatalf("decoded %q without a code", data)
		}
		for _, d := range apierr.Catalogue() {
			if d.Code() == e.Code() && e.Declaration() != d {
				t.Fatalf("%s decoded without the framework's declaration", e.Code())
			}
		}
		b, err := json.Marshal(&e)
		if err != nil {
			t.Fatalf("re-encoding %q: %v", data, err)
		}
		var back apierr.Error
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("decoding %s: %v", b, err)
		}
		if back.Code() != e.Code() || !reflect.DeepEqual(maps.Collect(back.Attrs()), maps.Collect(e.Attrs())) {
			t.Fatalf("%q became %s, then %v", data, b, &back)
		}
	})
}
