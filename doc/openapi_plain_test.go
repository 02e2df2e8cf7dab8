package doc_test

import (
	"encoding/json"
	"testing"

	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/doc"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/version"
)

type looseArgs struct {
	Any  any               `json:"any"`
	List []any             `json:"list"`
	Raw  json.RawMessage   `json:"raw,omitempty"`
	Map  map[string]any    `json:"map,omitempty"`
	Deep map[string][]any  `json:"deep,omitempty"`
	Tags map[string]string `json:"tags,omitempty"`
}

// TestOpenAPIHasNoBooleanSchemas: arguments of any type reflect to boolean schemas (true); the
// document writes them as {} for generators that refuse booleans, and leaves the registry's
// schemas as they were.
func TestOpenAPIHasNoBooleanSchemas(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	reg.MustRegister("loose", func(in looseArgs) []any { return nil }, registry.Requires(decl.Public))
	b, err := doc.OpenAPI(reg, version.MustParse("1.0"), decl.Names{})
	if err != nil {
		t.Fatal(err)
	}
	var d any
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	found := 0
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				if _, ok := e.(bool); ok && schemaKeyword[k] {
					t.Errorf("boolean schema at %s/%s", path, k)
				}
				if k == "properties" {
					for name, p := range e.(map[string]any) {
						if _, ok := p.(bool); ok {
							t.Errorf("boolean schema at %s/properties/%s", path, name)
						}
						found++
						walk(p, path+"/properties/"+name)
					}
					continue
				}
				walk(e, path+"/"+k)
			}
		case []any:
			for _, e := range v {
				if _, ok := e.(bool); ok {
					t.Errorf("boolean in a list at %s", path)
				}
				walk(e, path)
			}
		}
	}
	walk(d, "")
	if found == 0 {
		t.Fatal("no properties in the document: the walk checked nothing")
	}
	f := reg.Lookup(version.MustParse("1.0"), "loose")
	var list struct{ Items json.RawMessage }
	_ = json.Unmarshal(f.Params[1].Schema, &list)
	if b := list.Items; string(b) != "true" {
		t.Errorf("the registry's schema of list changed: items %s", b)
	}
	validate(t, "openapi", b)
}

// schemaKeyword lists the keywords whose value is one schema (additionalProperties may stay a
// boolean: generators read it as one).
var schemaKeyword = map[string]bool{
	"schema": true, "items": true, "contains": true, "not": true, "if": true, "then": true,
	"else": true, "propertyNames": true, "contentSchema": true,
}
