// Command mismatch implements a declaration with a function of the wrong argument type: it
// must not compile (see TestImplementMismatchDoesNotCompile).
package main

import (
	"context"

	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
)

type GreetArgs struct {
	Name string `json:"name"`
}

type OtherArgs struct {
	Who string `json:"who"`
}

var Greet = decl.Func[GreetArgs, string]("greet")

func greet(ctx context.Context, in OtherArgs) (string, error) { return "Hello, " + in.Who, nil }

func main() {
	registry.MustImplement(registry.New(), Greet, greet)
}
