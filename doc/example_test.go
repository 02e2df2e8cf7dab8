package doc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/doc"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/version"
)

type addArgs struct {
	A int `json:"a" jsonschema:"description=The first term"`
	B int `json:"b" default:"1" jsonschema:"description=The second term"`
}

func add(_ context.Context, in addArgs) (int, error) { return in.A + in.B, nil }

func ExampleDescribe() {
	reg := registry.New()
	reg.MustRegister("add", add, registry.Describe("Adds two integers."), registry.Requires(decl.Public))

	api := doc.Describe(reg, version.MustParse("1.0"))
	b, _ := json.MarshalIndent(api.Functions[0], "", "  ")
	fmt.Println(string(b))
	// Output:
	// {
	//   "name": "add",
	//   "description": "Adds two integers.",
	//   "since": "1.0",
	//   "auth": "none",
	//   "max_body": 1048576,
	//   "arguments": {
	//     "$schema": "https://json-schema.org/draft/2020-12/schema",
	//     "properties": {
	//       "a": {
	//         "type": "integer",
	//         "description": "The first term"
	//       },
	//       "b": {
	//         "type": "integer",
	//         "description": "The second term",
	//         "default": 1
	//       }
	//     },
	//     "additionalProperties": false,
	//     "type": "object",
	//     "required": [
	//       "a"
	//     ]
	//   },
	//   "result": {
	//     "$schema": "https://json-schema.org/draft/2020-12/schema",
	//     "type": "integer"
	//   },
	//   "errors": []
	// }
}

func ExampleOpenAPI() {
	reg := registry.New()
	reg.MustRegister("add", add, registry.Describe("Adds two integers."))

	b, err := doc.OpenAPI(reg, version.MustParse("1.0"), decl.Names{}, doc.Title("Calculator"))
	if err != nil {
		fmt.Println(err)
		return
	}
	var d struct {
		OpenAPI string `json:"openapi"`
		Servers []struct {
			URL string `json:"url"`
		} `json:"servers"`
		Paths map[string]map[string]struct {
			OperationID string           `json:"operationId"`
			Security    []map[string]any `json:"security"`
		} `json:"paths"`
	}
	_ = json.Unmarshal(b, &d)
	fmt.Println(d.OpenAPI, d.Servers[0].URL)
	for _, method := range slices.Sorted(maps.Keys(d.Paths["/add"])) {
		op := d.Paths["/add"][method]
		fmt.Println(method, "/add", op.OperationID, len(op.Security), "ways to send a token")
	}
	// Output:
	// 3.1.0 {base}/1.0
	// get /add get:add 4 ways to send a token
	// post /add add 4 ways to send a token
}
