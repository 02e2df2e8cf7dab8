package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/version"
)

type rawArgs struct {
	One  json.RawMessage   `json:"one"`
	Many []json.RawMessage `json:"many,omitempty"`
}

// TestRawArguments: a json.RawMessage argument arrives as it came and a []json.RawMessage one
// as its elements, each as written; their schemas are those of any value and of an array.
func TestRawArguments(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	reg.MustRegister("raw", func(in rawArgs) rawArgs { return in }, registry.Requires(decl.Public))
	f := reg.Lookup(version.MustParse("1.0"), "raw")
	call := func(many string) (rawArgs, error) {
		args := map[string]json.RawMessage{"one": json.RawMessage(`{"b": [1, 2] ,"a":"\u00e9"}`)}
		if many != "" {
			args["many"] = json.RawMessage(many)
		}
		out, err := registry.Invoke(context.Background(), &registry.Call{Func: f, Args: args})
		if err != nil {
			return rawArgs{}, err
		}
		return out.(rawArgs), nil
	}
	got, err := call(`[ {"t": 1} ,"x\"]", [ ], null ]`)
	want := rawArgs{One: json.RawMessage(`{"b": [1, 2] ,"a":"\u00e9"}`),
		Many: []json.RawMessage{json.RawMessage(`{"t": 1}`), json.RawMessage(`"x\"]"`), json.RawMessage(`[ ]`), json.RawMessage(`null`)}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("raw = %q, %v; want %q", got, err, want)
	}
	if got, err := call(`null`); err != nil || len(got.Many) != 0 {
		t.Errorf("raw with many null = %q, %v; want no elements", got.Many, err)
	}
	_, err = call(`{"t": 1}`)
	var e *apierr.Error
	if !errors.As(err, &e) || e.Code() != apierr.InvalidArgument.Code() {
		t.Errorf("raw with many an object: %v; want INVALID-ARGUMENT", err)
	}
	schemas, _ := json.Marshal(f.ArgsSchema)
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(schemas, &s); err != nil || string(s.Properties["one"]) != `true` ||
		string(s.Properties["many"]) != `{"items":true,"type":"array"}` {
		t.Errorf("schema %s: want one any value and many an array of any", schemas)
	}
}
