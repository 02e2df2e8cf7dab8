package doc_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/doc"
	"github.com/fnapi/fnapi/version"
)

func TestDescribeGolden(t *testing.T) {
	t.Parallel()
	reg := sample(t)
	for _, v := range []string{"1.0", "1.1"} {
		t.Run(v, func(t *testing.T) {
			b, err := json.Marshal(doc.Describe(reg, version.MustParse(v)))
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "describe-"+v+".json", b)
			validate(t, "fnapi", b)
		})
	}
}

// described returns the description of the sample API at v as the client sees it: JSON.
func described(t *testing.T, v string) map[string]any {
	t.Helper()
	b, err := json.Marshal(doc.Describe(sample(t), version.MustParse(v)))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// at follows a path of object keys and array indexes ("functions", "greet" finds the function
// named greet) through a decoded JSON value.
func at(t *testing.T, v any, path ...string) any {
	t.Helper()
	for i, k := range path {
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[k]
			if !ok {
				t.Fatalf("no %q at %v", k, path[:i])
			}
			v = next
		case []any:
			found := false
			for _, e := range x {
				if m, ok := e.(map[string]any); ok && (m["name"] == k || m["code"] == k) {
					v, found = e, true
					break
				}
			}
			if !found {
				t.Fatalf("no element named %q at %v", k, path[:i])
			}
		default:
			t.Fatalf("%v is not an object or array", path[:i])
		}
	}
	return v
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		version string
		path    []string
		want    string // JSON
	}{
		{"version served", "1.0", []string{"version"}, `"1.0"`},
		{"every version", "1.0", []string{"versions"}, `["1.0","1.1"]`},
		{"since", "1.1", []string{"functions", "count", "since"}, `"1.1"`},
		{"public", "1.0", []string{"functions", "greet", "auth"}, `"none"`},
		{"token by default", "1.0", []string{"functions", "add", "auth"}, `"token"`},
		{"session", "1.1", []string{"functions", "find", "auth"}, `"session"`},
		{"description from Describe", "1.0", []string{"functions", "add", "description"}, `"Adds two integers."`},
		{"description from the doc comment", "1.0", []string{"functions", "greet", "description"},
			`"Greet says hello to someone.\n\nIt repeats the greeting Times times."`},
		{"description of a method value", "1.1", []string{"functions", "find", "description"},
			`"Find answers the note named name, or NOT-FOUND."`},
		{"schema dialect", "1.0", []string{"functions", "greet", "arguments", "$schema"}, `"https://json-schema.org/draft/2020-12/schema"`},
		{"arguments object", "1.0", []string{"functions", "greet", "arguments", "type"}, `"object"`},
		{"required in declaration order", "1.0", []string{"functions", "add", "arguments", "required"}, `["a","b"]`},
		{"default makes optional", "1.0", []string{"functions", "greet", "arguments", "required"}, `["name"]`},
		{"default shown", "1.0", []string{"functions", "greet", "arguments", "properties", "times", "default"}, `1`},
		{"argument description from a tag", "1.0", []string{"functions", "greet", "arguments", "properties", "times", "description"},
			`"How many times to say hello."`},
		{"argument description from a doc comment", "1.0", []string{"functions", "greet", "arguments", "properties", "name", "description"},
			`"Name is who to greet."`},
		{"argument description from a line comment", "1.0", []string{"functions", "greet", "arguments", "properties", "tags", "description"},
			`"Tags are appended to the greeting."`},
		{"arguments description from the type's comment", "1.0", []string{"functions", "greet", "arguments", "description"},
			`"GreetArgs are the arguments of greet."`},
		{"constraints", "1.1", []string{"functions", "count", "arguments", "properties", "to", "maximum"}, `100`},
		{"no unknown arguments", "1.0", []string{"functions", "greet", "arguments", "additionalProperties"}, `false`},
		{"result", "1.0", []string{"functions", "add", "result", "type"}, `"integer"`},
		{"no result is null", "1.1", []string{"functions", "forget", "result", "type"}, `"null"`},
		{"chunk schema", "1.1", []string{"functions", "count", "streaming", "chunk", "properties", "n", "description"}, `"N is the number reached."`},
		{"accumulate", "1.1", []string{"functions", "count", "streaming", "accumulate"}, `"replace"`},
		{"declared errors", "1.1", []string{"functions", "find", "errors"}, `["NOT-A-NOTE","NOT-FOUND"]`},
		{"declared code's status", "1.1", []string{"declared_errors", "NOT-A-NOTE", "status"}, `422`},
		{"declared code's description", "1.1", []string{"declared_errors", "NOT-A-NOTE", "description"}, `"The name is that of something other than a note."`},
		{"declared code's attributes", "1.1", []string{"declared_errors", "NOT-A-NOTE", "attributes"}, `{"kind":"what the name is instead","name":"the name given"}`},
		{"declared attribute types", "1.1", []string{"declared_errors", "NOT-A-NOTE", "types"}, `{"name":"string"}`},
		{"a framework code is described in errors only", "1.1", []string{"declared_errors"}, `[{"attributes":{"kind":"what the name is instead","name":"the name given"},"code":"NOT-A-NOTE","description":"The name is that of something other than a note.","status":422,"types":{"name":"string"}}]`},
		{"no declared code at 1.0", "1.0", []string{"declared_errors"}, `[]`},
		{"no declared errors", "1.0", []string{"functions", "greet", "errors"}, `[]`},
		{"catalogue status", "1.0", []string{"errors", "NOT-FOUND", "status"}, `404`},
		{"catalogue attributes", "1.0", []string{"errors", "TOO-FEW-ARGUMENTS", "attributes"},
			`{"count":"how many required arguments the function has","names":"the function's required argument names, in declaration order"}`},
	}
	docs := map[string]map[string]any{"1.0": described(t, "1.0"), "1.1": described(t, "1.1")}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := json.Marshal(at(t, docs[tt.version], tt.path...))
			if string(got) != tt.want {
				t.Errorf("%v at %s = %s, want %s", tt.path, tt.version, got, tt.want)
			}
		})
	}
}

func TestDescribeVersions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		version string
		want    []string
	}{
		{"1.0", []string{"add", "doc", "greet"}},
		{"1.1", []string{"add", "count", "doc", "find", "forget", "greet"}},
		{"2.0", nil}, // not served: nothing
	}
	reg := sample(t)
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			var got []string
			for _, f := range doc.Describe(reg, version.MustParse(tt.version)).Functions {
				got = append(got, f.Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("functions %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCatalogue(t *testing.T) {
	t.Parallel()
	cat := doc.Catalogue()
	decls := apierr.Catalogue()
	if len(cat) != len(decls) {
		t.Fatalf("%d codes described, apierr has %d", len(cat), len(decls))
	}
	for i, c := range cat {
		t.Run(string(c.Code), func(t *testing.T) {
			if c.Code != decls[i].Code() {
				t.Errorf("code %d is %s, want %s", i, c.Code, decls[i].Code())
			}
			if c.Description == "" {
				t.Error("no description: describe the code in its apierr declaration")
			}
			if c.Status != decls[i].Status() || c.Attributes == nil {
				t.Errorf("status %d, attributes %v", c.Status, c.Attributes)
			}
		})
	}
}
