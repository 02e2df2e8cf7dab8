// Command mismatch implements declarations with functions of the wrong types: it must not
// compile, and the compiler must say so for each (see TestImplementMismatchDoesNotCompile).
package main

import (
	"context"

	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/stream"
)

type GreetArgs struct {
	Name string `json:"name"`
}

type OtherArgs struct {
	Who string `json:"who"`
}

var (
	Greet = decl.Func[GreetArgs, string]("greet")
	Count = decl.Stream[GreetArgs, int]("count")
)

func greetOther(ctx context.Context, in OtherArgs) (string, error) { return "Hello, " + in.Who, nil }

func greetLength(ctx context.Context, in GreetArgs) (int, error) { return len(in.Name), nil }

func countStrings(ctx context.Context, in GreetArgs, s *stream.Sender[string]) error {
	return s.Send(in.Name)
}

func main() {
	reg := registry.New()
	registry.MustImplement(reg, Greet, greetOther)         // line 36: another argument type
	registry.MustImplement(reg, Greet, greetLength)        // line 37: another result type
	registry.MustImplementStream(reg, Count, countStrings) // line 38: another chunk type
}
