package registry

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/invopop/jsonschema"
	orderedmap "github.com/pb33f/ordered-map/v2"
)

// newReflector returns the schema reflector; comments (keyed as the Comments option says) give
// descriptions to types and fields that have no description tag.
func newReflector(comments map[string]string) *jsonschema.Reflector {
	return &jsonschema.Reflector{
		DoNotReference:            true,
		ExpandedStruct:            true,
		Anonymous:                 true,
		AllowAdditionalProperties: true,
		CommentMap:                comments,
	}
}

// schemaOf returns the JSON Schema of values of type t, without the $schema keyword.
func schemaOf(r *jsonschema.Reflector, t reflect.Type) *jsonschema.Schema {
	s := r.ReflectFromType(t)
	s.Version = ""
	return s
}

func (f *Func) buildSchemas() error {
	f.describeFromComments()
	r := newReflector(f.comments)
	args := &jsonschema.Schema{Type: "object", Properties: orderedmap.New[string, *jsonschema.Schema]()}
	switch f.form {
	case formStruct:
		st := schemaOf(r, f.in)
		for i := range f.Params {
			p := &f.Params[i]
			p.Schema, _ = st.Properties.Get(p.Name)
		}
		args.Description = st.Description
	case formMap:
		args.AdditionalProperties = jsonschema.TrueSchema
	default:
		args.AdditionalProperties = jsonschema.FalseSchema
	}
	for i := range f.Params {
		p := &f.Params[i]
		if p.Schema == nil {
			p.Schema = schemaOf(r, p.typ)
		}
		if p.Default != nil {
			var d any
			_ = json.Unmarshal(p.Default, &d) // checked at registration
			p.Schema.Default = d
		}
		c, err := constraintsOf(p.Schema)
		if err != nil {
			return fmt.Errorf("argument %q: %w", p.Name, err)
		}
		p.check = c
		args.Properties.Set(p.Name, p.Schema)
	}
	args.Required = f.required
	if f.form == formStruct && len(f.Params) > 0 {
		args.AdditionalProperties = jsonschema.FalseSchema
	}
	f.ArgsSchema = args
	switch {
	case f.Streaming:
		f.ChunkSchema = schemaOf(r, f.Accumulator.ChunkType())
		f.ResultSchema = schemaOf(r, f.Accumulator.ResultType())
	case f.outValue:
		f.ResultSchema = schemaOf(r, f.fn.Type().Out(0))
	}
	return nil
}
