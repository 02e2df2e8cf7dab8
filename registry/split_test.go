package registry

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestSplitArray(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		`[]`, ` [ ] `, `[1]`, `[1,2,3]`, `[ "a" , {"b":[1,"]"]} ,null,true,-1.5e3 ]`,
		`["\"]\\", "x"]`, "[\n{\"k\":\"v\"}\n]", `[[],[[]],{}]`,
	} {
		got, ok := splitArray(json.RawMessage(in))
		var want []json.RawMessage
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatal(err)
		}
		if !ok || !reflect.DeepEqual(asStrings(got), asStrings(want)) {
			t.Errorf("splitArray(%s) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{`null`, `{"a":1}`, `"[1]"`, `1`} {
		if _, ok := splitArray(json.RawMessage(in)); ok {
			t.Errorf("splitArray(%s) split a non-array", in)
		}
	}
}

func asStrings(vs []json.RawMessage) []string {
	out := []string{}
	for _, v := range vs {
		out = append(out, string(v))
	}
	return out
}

// FuzzSplitArray checks the splitter against encoding/json on every valid JSON input.
func FuzzSplitArray(f *testing.F) {
	for _, s := range []string{`[]`, `[1, "a", {"b": [2]}]`, `["\\\"", null]`, `{"a":[1]}`, `[ [ ] , { } ]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(s)) {
			return // Call.Args values are valid JSON
		}
		got, ok := splitArray(json.RawMessage(s))
		var want []json.RawMessage
		err := json.Unmarshal([]byte(s), &want)
		if !ok {
			if err == nil && want != nil {
				t.Fatalf("splitArray(%q) refused an array: %q", s, want)
			}
			return
		}
		if err != nil || !reflect.DeepEqual(asStrings(got), asStrings(want)) {
			t.Fatalf("splitArray(%q) = %q; encoding/json gives %q (%v)", s, got, want, err)
		}
	})
}

// BenchmarkSplitArray splits the records of an ingest call of 10,000 records (~2 MB).
func BenchmarkSplitArray(b *testing.B) {
	rec := `{"time":1700000000,"protocol":"tcp","application":"https","client":{"ip":"10.0.0.5","port":51234,"bytes":1200,"packets":9},"server":{"ip":"93.184.216.34","port":443,"bytes":48000,"packets":40}}`
	raw := json.RawMessage(`[` + strings.Repeat(rec+",", 9999) + rec + `]`)
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if vs, ok := splitArray(raw); !ok || len(vs) != 10000 {
			b.Fatal(len(vs), ok)
		}
	}
}
