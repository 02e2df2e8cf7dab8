package jsonobject

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// TestEncodeRawMap checks the reflection-free encoding of echo's answers: whatever the names,
// the output is the JSON object of the same names and values.
func TestEncodeRawMap(t *testing.T) {
	t.Parallel()
	tests := map[string]map[string]json.RawMessage{
		"plain":      {"a": json.RawMessage(`1`), "b": json.RawMessage(` "x" `)},
		"escapes":    {`q"uote`: json.RawMessage(`1`), `back\slash`: json.RawMessage(`2`), "tab\tnl\n": json.RawMessage(`3`)},
		"non-ASCII":  {"é": json.RawMessage(`[1, 2]`), "名前": json.RawMessage(`{"k": null}`)},
		"HTML":       {"<a&b>": json.RawMessage(`true`)},
		"nil value":  {"n": nil},
		"empty name": {"": json.RawMessage(`0`)},
	}
	for name, in := range tests {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := encodeRawMap(&b, in); err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(b.Bytes(), &got); err != nil {
				t.Fatalf("%s is not JSON: %v", b.Bytes(), err)
			}
			want := map[string]any{}
			for k, v := range in {
				var x any
				if v != nil {
					_ = json.Unmarshal(v, &x)
				}
				want[k] = x
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("encoded %s, want %v", b.Bytes(), want)
			}
		})
	}
}
