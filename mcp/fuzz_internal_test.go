package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzAppendString checks that the text content of a tool result decodes back to the JSON
// text it was made from.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `"x\"y\\z\n\u0001"`, "\"é\u2028\"", `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var v any
		if json.Unmarshal(b, &v) != nil {
			return
		}
		text, _ := json.Marshal(v) // as Marshal writes a result: valid UTF-8
		var back string
		if err := json.Unmarshal(appendString(nil, text), &back); err != nil || back != string(text) {
			t.Fatalf("%q: %q, %v", text, back, err)
		}
	})
}

// FuzzMatch checks that a URI a template matches is the template with its variables put back.
func FuzzMatch(f *testing.F) {
	f.Add("test://template/{id}/data", "test://template/123/data")
	f.Add("a/{x}{y}", "a/bc")
	f.Add("{x}", "")
	f.Fuzz(func(t *testing.T, tmpl, uri string) {
		vars, ok := match(tmpl, uri)
		if !ok {
			return
		}
		got := tmpl
		for k, v := range vars {
			if v == "" || strings.Contains(v, "/") {
				t.Fatalf("%q, %q: variable %s = %q", tmpl, uri, k, v)
			}
			got = strings.Replace(got, "{"+k+"}", v, 1)
		}
		if !strings.Contains(tmpl, "}{") && got != uri && !strings.Contains(got, "{") {
			t.Fatalf("%q with %v is %q, not %q", tmpl, vars, got, uri)
		}
	})
}

func TestMatch(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		tmpl, uri string
		want      map[string]string
	}{
		{"test://template/{id}/data", "test://template/123/data", map[string]string{"id": "123"}},
		{"test://template/{id}/data", "test://template/1/2/data", nil},
		{"test://template/{id}/data", "test://template//data", nil},
		{"doc://{a}.{b}", "doc://x.y", map[string]string{"a": "x", "b": "y"}},
		{"static://x", "static://x", map[string]string{}},
	} {
		got, ok := match(tt.tmpl, tt.uri)
		if ok != (tt.want != nil) || len(got) != len(tt.want) {
			t.Errorf("%s %s: %v %v", tt.tmpl, tt.uri, got, ok)
		}
		for k, v := range tt.want {
			if got[k] != v {
				t.Errorf("%s %s: %s = %q", tt.tmpl, tt.uri, k, got[k])
			}
		}
	}
}
