package registry_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/stream"
	"github.com/fnapi/fnapi/version"
)

type FindArgs struct {
	Query string  `json:"query" jsonschema:"description=What to look for"`
	Limit int     `json:"limit" default:"10" jsonschema:"minimum=1,maximum=100"`
	After *string `json:"after" jsonschema:"description=Cursor from the previous page"`
}

// Register checks the function's shape once; each call's JSON arguments are bound, checked and
// defaulted before the function runs.
func ExampleRegistry_Register() {
	reg := registry.New()
	err := reg.Register("search", func(ctx context.Context, in FindArgs) ([]string, error) {
		return []string{fmt.Sprintf("%s (limit %d, after %v)", in.Query, in.Limit, in.After)}, nil
	})
	if err != nil {
		panic(err)
	}
	f := reg.Lookup(version.MustParse("1.0"), "search")
	for _, args := range []string{`{"query":"dns"}`, `{"limit":5}`, `{"query":"dns","limit":500}`, `{"query":"dns","page":2}`} {
		var m map[string]json.RawMessage
		_ = json.Unmarshal([]byte(args), &m)
		res, err := registry.Invoke(context.Background(), &registry.Call{Func: f, Args: m})
		fmt.Println(res, err)
	}
	// Output:
	// [dns (limit 10, after <nil>)] <nil>
	// <nil> TOO-FEW-ARGUMENTS count=1 names=[query]
	// <nil> INVALID-ARGUMENT name=limit reason=must be at most 100
	// <nil> UNKNOWN-ARGUMENTS names=[page]
}

// A streaming function's chunks build the result of a non-streaming call as its accumulator says:
// here each chunk is a progress report and the result is the last one.
func ExampleAccumulate() {
	type Progress struct {
		Done  int `json:"done"`
		Total int `json:"total"`
	}
	reg := registry.New()
	reg.MustRegister("rebuild", func(ctx context.Context, s *stream.Sender[Progress]) error {
		for i := 1; i <= 3; i++ {
			if err := s.Send(Progress{Done: i, Total: 3}); err != nil {
				return err
			}
		}
		return nil
	}, registry.Accumulate(stream.Last[Progress]()))
	f := reg.Lookup(version.MustParse("1.0"), "rebuild")
	res, err := registry.Invoke(context.Background(), &registry.Call{Func: f})
	fmt.Printf("%+v %v %s\n", res, err, f.Accumulator.Mode)
	// Output: {Done:3 Total:3} <nil> replace
}
