package registry

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/fnapi/fnapi/internal/schemalink"
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
			p.schema, _ = st.Properties.Get(p.Name)
		}
		args.Description = st.Description
	case formMap:
		args.AdditionalProperties = jsonschema.TrueSchema
	default:
		args.AdditionalProperties = jsonschema.FalseSchema
	}
	for i := range f.Params {
		p := &f.Params[i]
		if p.schema == nil {
			p.schema = schemaOf(r, p.typ)
		}
		if p.Default != nil {
			var d any
			_ = json.Unmarshal(p.Default, &d) // checked at registration
			p.schema.Default = d
		}
		c, err := constraintsOf(p.schema)
		if err != nil {
			return fmt.Errorf("argument %q: %w", p.Name, err)
		}
		p.check = c
		args.Properties.Set(p.Name, p.schema)
	}
	args.Required = f.required
	if f.form == formStruct && len(f.Params) > 0 {
		args.AdditionalProperties = jsonschema.FalseSchema
	}
	f.schemas.Args = args
	switch {
	case f.Streaming:
		f.schemas.Chunk = schemaOf(r, f.Accumulator.ChunkType())
		f.schemas.Result = schemaOf(r, f.Accumulator.ResultType())
	case f.outValue:
		f.schemas.Result = schemaOf(r, f.fn.Type().Out(0))
	}
	return f.encodeSchemas()
}

// encodeSchemas sets the JSON of f's schemas, as its exported fields show them.
func (f *Func) encodeSchemas() error {
	var err error
	enc := func(s *jsonschema.Schema) json.RawMessage {
		if s == nil || err != nil {
			return nil
		}
		var b []byte
		b, err = json.Marshal(s)
		return b
	}
	f.ArgsSchema, f.ResultSchema, f.ChunkSchema = enc(f.schemas.Args), enc(f.schemas.Result), enc(f.schemas.Chunk)
	f.schemas.Params = make([]*jsonschema.Schema, len(f.Params))
	for i := range f.Params {
		f.schemas.Params[i] = f.Params[i].schema
		f.Params[i].Schema = enc(f.Params[i].schema)
	}
	if err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	return nil
}

func init() {
	schemalink.Of = func(f any) *schemalink.Schemas { return &f.(*Func).schemas }
}
