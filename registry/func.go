package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/internal/schemalink"
	"github.com/fnapi/fnapi/internal/streamlink"
	"github.com/fnapi/fnapi/stream"
	"github.com/fnapi/fnapi/version"
	"github.com/invopop/jsonschema"
)

// Func is a registered function: what doc shows of it, and how to call it. A Func is immutable
// after registration and safe for concurrent use.
type Func struct {
	// Name is the function's name in paths and calls.
	Name string
	// Description says what the function does.
	Description string
	// Since is the API version the function appeared in.
	Since version.Version
	// Until is the API version that removed or replaced it; nil while it is served.
	Until *version.Version
	// Access is the token the function needs.
	Access decl.Access
	// MaxBody limits the request body of an HTTP call, in bytes (see MaxBody). Default:
	// DefaultMaxBody.
	MaxBody int64
	// ReadOnly reports that the function changes nothing (see ReadOnly).
	ReadOnly bool
	// NoStore reports that the function's answers carry secrets (see NoStore).
	NoStore bool
	// Role is the role the caller needs (Requires with a role); empty when the function names none.
	Role string
	// Params describes the arguments in declaration order. Empty for a function that takes any
	// named arguments (AnyArgs).
	Params []Param
	// AnyArgs reports that the function takes any named arguments.
	AnyArgs bool
	// Errors lists the declarations of the codes the function stated it may answer besides
	// the framework's catalogue (see Errors).
	Errors []*apierr.Declaration
	// Streaming reports that the function sends chunks.
	Streaming bool
	// Accumulator says how chunks build the result of a non-streaming call; set when Streaming.
	Accumulator stream.Accumulator
	// ArgsSchema is the JSON Schema of the arguments object, as JSON.
	ArgsSchema json.RawMessage
	// ResultSchema is the JSON Schema of the result, as JSON; nil when the function returns
	// nothing.
	ResultSchema json.RawMessage
	// ChunkSchema is the JSON Schema of one chunk, as JSON; nil unless Streaming.
	ChunkSchema json.RawMessage

	argNames []string
	acc      *stream.Accumulator
	comments map[string]string // Go doc comments, from the Comments option
	schemas  schemalink.Schemas

	fn        reflect.Value
	hasCtx    bool
	form      argForm
	in        reflect.Type // the struct, for formStruct; the map, for formMap
	byName    map[string]int
	required  []string
	sender    reflect.Type // *stream.Sender[T], when Streaming
	outValue  bool         // returns a value
	outErr    bool         // returns an error
	numParams int
}

// Param describes one argument.
type Param struct {
	// Name is the argument's name.
	Name string
	// Required reports that a call must give it.
	Required bool
	// Default is the JSON value used when the call omits it; nil if none.
	Default json.RawMessage
	// Schema is the argument's JSON Schema, as JSON.
	Schema json.RawMessage

	schema *jsonschema.Schema
	typ    reflect.Type
	index  []int // field index, for formStruct
	check  *constraints
}

type argForm int

const (
	formNone argForm = iota
	formStruct
	formPlain
	formMap
)

var (
	ctxType      = reflect.TypeFor[context.Context]()
	errType      = reflect.TypeFor[error]()
	senderType   = streamlink.Sender
	rawMapType   = reflect.TypeFor[map[string]json.RawMessage]()
	rawType      = reflect.TypeFor[json.RawMessage]()
	rawSliceType = reflect.TypeFor[[]json.RawMessage]()
	anyMapType   = reflect.TypeFor[map[string]any]()
)

// newFunc checks fn's shape and builds its description.
func newFunc(name string, fn any, opts []Option) (*Func, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	f := &Func{Name: name, Since: version.Version{Major: 1}, MaxBody: DefaultMaxBody}
	for _, o := range opts {
		if err := o(f); err != nil {
			return nil, err
		}
	}
	if f.Until != nil && !f.Since.Less(*f.Until) {
		return nil, fmt.Errorf("Until %v is not after Since %v", f.Until, f.Since)
	}
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Func || v.IsNil() {
		return nil, fmt.Errorf("not a function: %T", fn)
	}
	f.fn = v
	t := v.Type()
	if t.IsVariadic() {
		return nil, errors.New("variadic functions are not supported: name each argument")
	}
	params := make([]reflect.Type, t.NumIn())
	for i := range params {
		params[i] = t.In(i)
	}
	if len(params) > 0 && params[0] == ctxType {
		f.hasCtx = true
		params = params[1:]
	}
	if n := len(params); n > 0 && params[n-1].Implements(senderType) {
		if params[n-1].Kind() != reflect.Pointer {
			return nil, fmt.Errorf("the sender parameter must be a pointer, *%v", params[n-1])
		}
		f.Streaming = true
		f.sender = params[n-1]
		params = params[:n-1]
	}
	f.numParams = len(params)
	if err := f.checkResults(t); err != nil {
		return nil, err
	}
	if err := f.bindParams(params); err != nil {
		return nil, err
	}
	return f, f.buildSchemas()
}

func checkName(name string) error { return decl.CheckName(name) }

func (f *Func) checkResults(t reflect.Type) error {
	switch t.NumOut() {
	case 0:
	case 1:
		if t.Out(0) == errType {
			f.outErr = true
		} else {
			f.outValue = true
		}
	case 2:
		if t.Out(1) != errType {
			return fmt.Errorf("the second result must be error, not %v", t.Out(1))
		}
		if t.Out(0) == errType {
			return errors.New("the first result must be a value, not error")
		}
		f.outValue, f.outErr = true, true
	default:
		return fmt.Errorf("%d results: return (Out, error), Out, error or nothing", t.NumOut())
	}
	if f.outValue && !f.Streaming {
		if err := encodable(t.Out(0)); err != nil {
			return fmt.Errorf("result: %w", err)
		}
	}
	if f.Streaming {
		if f.outValue {
			return errors.New("a streaming function sends its values; it returns only error")
		}
		chunk := streamlink.ChunkType(reflect.New(f.sender.Elem()).Interface())
		if err := encodable(chunk); err != nil {
			return fmt.Errorf("chunk: %w", err)
		}
		if f.acc == nil {
			a := stream.AppendOf(chunk)
			f.acc = &a
		}
		if err := f.acc.Check(chunk); err != nil {
			return err
		}
		f.Accumulator = *f.acc
	} else if f.acc != nil {
		return errors.New("Accumulate is for streaming functions (with a *stream.Sender parameter)")
	}
	return nil
}

// encodable refuses types encoding/json cannot encode.
func encodable(t reflect.Type) error {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Chan, reflect.Func, reflect.Complex64, reflect.Complex128, reflect.UnsafePointer:
		return fmt.Errorf("type %v cannot be encoded as JSON", t)
	case reflect.Map:
		switch t.Key().Kind() {
		case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		default:
			if !t.Key().Implements(reflect.TypeFor[interface{ MarshalText() ([]byte, error) }]()) {
				return fmt.Errorf("map key type %v cannot be encoded as JSON", t.Key())
			}
		}
	}
	return nil
}

func (f *Func) bindParams(params []reflect.Type) error {
	switch {
	case f.argNames != nil:
		if len(f.argNames) != len(params) {
			return fmt.Errorf("Args names %d arguments, the function takes %d", len(f.argNames), len(params))
		}
		f.form = formPlain
		for i, name := range f.argNames {
			if err := encodable(params[i]); err != nil {
				return fmt.Errorf("argument %q: %w", name, err)
			}
			f.Params = append(f.Params, Param{Name: name, Required: true, typ: params[i]})
		}
	case len(params) == 0:
		f.form = formNone
	case len(params) > 1:
		return fmt.Errorf("%d plain parameters: name them with Args, or take one struct", len(params))
	case params[0] == anyMapType || params[0] == rawMapType:
		f.form, f.in, f.AnyArgs = formMap, params[0], true
	case params[0].Kind() == reflect.Struct:
		f.form, f.in = formStruct, params[0]
		if err := f.structParams(params[0]); err != nil {
			return err
		}
	default:
		return fmt.Errorf("parameter of type %v: take a struct of arguments, or name plain parameters with Args", params[0])
	}
	f.byName = make(map[string]int, len(f.Params))
	for i, p := range f.Params {
		if strings.HasPrefix(p.Name, "_") || p.Name == "" {
			return fmt.Errorf("argument name %q: names starting with '_' are reserved for tokens", p.Name)
		}
		if _, dup := f.byName[p.Name]; dup {
			return fmt.Errorf("argument %q is declared twice", p.Name)
		}
		f.byName[p.Name] = i
		if p.Required {
			f.required = append(f.required, p.Name)
		}
	}
	return nil
}

func (f *Func) structParams(t reflect.Type) error {
	for _, sf := range reflect.VisibleFields(t) {
		if sf.Anonymous {
			if sf.Type.Kind() == reflect.Pointer {
				return fmt.Errorf("field %s: embedded pointers are not supported", sf.Name)
			}
			continue // its fields are visible on their own
		}
		if !sf.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		if err := encodable(sf.Type); err != nil {
			return fmt.Errorf("argument %q: %w", name, err)
		}
		p := Param{Name: name, typ: sf.Type, index: sf.Index}
		optional := sf.Type.Kind() == reflect.Pointer || hasOpt(opts, "omitempty") || hasOpt(opts, "omitzero")
		if def, ok := sf.Tag.Lookup("default"); ok {
			if err := json.Unmarshal([]byte(def), reflect.New(sf.Type).Interface()); err != nil {
				return fmt.Errorf("argument %q: default %q is not a JSON value of its type: %v", name, def, err)
			}
			p.Default = json.RawMessage(def)
			optional = true
		}
		p.Required = !optional
		f.Params = append(f.Params, p)
	}
	return nil
}

func hasOpt(opts, name string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == name {
			return true
		}
	}
	return false
}
