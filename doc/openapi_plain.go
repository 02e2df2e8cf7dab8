package doc

import (
	"reflect"

	"github.com/invopop/jsonschema"
)

// Client generators built on kin-openapi (oapi-codegen among them) refuse a boolean schema (true
// or false) where they expect a schema object, though JSON Schema 2020-12 and OpenAPI 3.1 allow
// it: "json: cannot unmarshal bool into field Schema.properties of type openapi3.Schema". The
// document therefore writes them as the equivalent objects, {} for true and {"not": {}} for
// false, everywhere but as additionalProperties, which those tools read as a boolean.

// plainSchemas rewrites the boolean schemas of the document's parameters, bodies, responses and
// components. The registry's schemas are shared: they are copied, never changed.
func (d *oaDocument) plainSchemas() {
	media := func(content map[string]oaMediaType) {
		for k, m := range content {
			m.Schema = objectSchemas(m.Schema)
			content[k] = m
		}
	}
	for _, item := range d.Paths {
		for _, op := range []*oaOperation{item.Get, item.Post} {
			if op == nil {
				continue
			}
			for i := range op.Parameters {
				op.Parameters[i].Schema = objectSchemas(op.Parameters[i].Schema)
				media(op.Parameters[i].Content)
			}
			if op.RequestBody != nil {
				media(op.RequestBody.Content)
			}
			for _, r := range op.Responses {
				media(r.Content)
			}
		}
	}
	for name, s := range d.Components.Schemas {
		d.Components.Schemas[name] = objectSchemas(s)
	}
}

// objectSchemas returns a copy of s in which every boolean subschema, but additionalProperties,
// is a schema object.
func objectSchemas(s *jsonschema.Schema) *jsonschema.Schema {
	if s == nil {
		return nil
	}
	if b, ok := boolean(s); ok {
		if b {
			return anything()
		}
		return &jsonschema.Schema{Not: anything()}
	}
	c := *s
	for _, p := range []**jsonschema.Schema{&c.Items, &c.Contains, &c.Not, &c.If, &c.Then, &c.Else, &c.PropertyNames, &c.ContentSchema} {
		*p = objectSchemas(*p)
	}
	for _, l := range []*[]*jsonschema.Schema{&c.PrefixItems, &c.AllOf, &c.AnyOf, &c.OneOf} {
		if *l != nil {
			out := make([]*jsonschema.Schema, len(*l))
			for i, e := range *l {
				out[i] = objectSchemas(e)
			}
			*l = out
		}
	}
	if _, ok := boolean(s.AdditionalProperties); !ok {
		c.AdditionalProperties = objectSchemas(s.AdditionalProperties)
	}
	if s.Properties != nil {
		c.Properties = jsonschema.NewProperties()
		for p := s.Properties.Oldest(); p != nil; p = p.Next() {
			c.Properties.Set(p.Key, objectSchemas(p.Value))
		}
	}
	if s.PatternProperties != nil {
		c.PatternProperties = make(map[string]*jsonschema.Schema, len(s.PatternProperties))
		for k, v := range s.PatternProperties {
			c.PatternProperties[k] = objectSchemas(v)
		}
	}
	return &c
}

// boolean reports whether s marshals as a boolean schema, and which: [jsonschema.TrueSchema] and
// FalseSchema keep their value in an unexported field, which reflection can read, and an empty
// schema (what the reflector makes of any) marshals as true.
func boolean(s *jsonschema.Schema) (value, ok bool) {
	if s == nil {
		return false, false
	}
	if f := reflect.ValueOf(s).Elem().FieldByName("boolean"); f.IsValid() && f.Kind() == reflect.Pointer && !f.IsNil() {
		return f.Elem().Bool(), true
	}
	return true, reflect.DeepEqual(s, &jsonschema.Schema{})
}

// anything returns the schema every value fits, written {} (an empty Schema would be true).
func anything() *jsonschema.Schema {
	return &jsonschema.Schema{Extras: map[string]any{}}
}
