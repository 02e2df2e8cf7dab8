package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"

	"github.com/fnapi/fnapi/apierr"
)

// bind checks the arguments of a call and appends the function's parameter values (after the
// context, before the sender) to in: TOO-FEW-ARGUMENTS first, then UNKNOWN-ARGUMENTS, then
// INVALID-ARGUMENT.
func (f *Func) bind(args map[string]json.RawMessage, in []reflect.Value) ([]reflect.Value, error) {
	if len(f.required) > 0 {
		for _, name := range f.required {
			if _, ok := args[name]; !ok {
				return in, apierr.New(apierr.TooFewArguments, "names", f.required, "count", len(f.required))
			}
		}
	}
	if f.form != formMap {
		var unknown []string
		for name := range args {
			if _, ok := f.byName[name]; !ok {
				unknown = append(unknown, name)
			}
		}
		if unknown != nil {
			sort.Strings(unknown)
			return in, apierr.New(apierr.UnknownArguments, "names", unknown)
		}
	}
	switch f.form {
	case formNone:
		return in, nil
	case formMap:
		if f.in == rawMapType {
			if args == nil {
				args = map[string]json.RawMessage{}
			}
			return append(in, reflect.ValueOf(args)), nil // the call's own map: no copy
		}
		m := make(map[string]any, len(args))
		for k, raw := range args {
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				return in, invalid(k, err)
			}
			m[k] = v
		}
		return append(in, reflect.ValueOf(m)), nil
	case formPlain:
		for i := range f.Params {
			p := &f.Params[i]
			v := reflect.New(p.typ)
			if err := p.decode(args[p.Name], v); err != nil {
				return in, err
			}
			in = append(in, v.Elem())
		}
		return in, nil
	}
	st := reflect.New(f.in).Elem()
	for i := range f.Params {
		p := &f.Params[i]
		raw, ok := args[p.Name]
		if !ok {
			if p.Default == nil {
				continue
			}
			raw = p.Default
		}
		if err := p.decode(raw, st.FieldByIndex(p.index).Addr()); err != nil {
			return in, err
		}
	}
	return append(in, st), nil
}

// decode decodes raw into the value ptr points to and checks it against the constraints.
func (p *Param) decode(raw json.RawMessage, ptr reflect.Value) error {
	if p.check == nil {
		switch p.typ {
		case rawType: // the value as it came: no decoding at all
			ptr.Elem().SetBytes(raw)
			return nil
		case rawSliceType: // an array of raw values, as ingest takes: split, not decoded
			if vs, ok := splitArray(raw); ok {
				ptr.Elem().Set(reflect.ValueOf(vs))
				return nil
			}
		}
	}
	if err := json.Unmarshal(raw, ptr.Interface()); err != nil {
		return invalid(p.Name, err)
	}
	if p.check != nil {
		if reason := p.check.check(raw, ptr.Elem()); reason != "" {
			return apierr.New(apierr.InvalidArgument, "name", p.Name, "reason", reason)
		}
	}
	return nil
}

// invalid turns a decoding error into INVALID-ARGUMENT with a reason a client can act on.
func invalid(name string, err error) error {
	reason := "not a valid JSON value"
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		where := ""
		if te.Field != "" {
			where = " at " + te.Field
		}
		reason = fmt.Sprintf("expected %s%s, got %s", jsonKind(te.Type), where, te.Value)
	case errors.As(err, &se):
		reason = fmt.Sprintf("not valid JSON at byte %d", se.Offset)
	default:
		// Errors from UnmarshalJSON/UnmarshalText methods of the argument's type say what is
		// wrong with the value (a bad time, a bad address); they hold no server internals.
		reason = err.Error()
	}
	return apierr.New(apierr.InvalidArgument, "name", name, "reason", reason)
}

// jsonKind names the JSON type that decodes into t.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer in range for " + t.Kind().String()
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a value of type " + t.String()
}
