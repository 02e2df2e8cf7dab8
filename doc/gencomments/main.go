// Command gencomments writes the Go doc comments of packages as JSON, for registry.Comments:
// the descriptions of API functions, their arguments and results, taken from the source at
// build time so that a deployed binary, which has no source tree, still has them.
//
// Usage:
//
//	gencomments [-out file] [packages]
//
// The packages are go list patterns (default "."), read without their tests. The output (to
// -out, else the standard output) is one JSON object whose keys name what the comment
// documents, and whose values are the comment's text, each paragraph on one line:
//
//	import/path.Func         a package-level function
//	import/path.Type         a type
//	import/path.Type.Field   a field of a struct type (its doc comment, else its line comment)
//	import/path.Type.Method  a method
//
// Functions and types of a main package are under "main", as the Go runtime names them.
// Keys are sorted, so the file changes only when a comment does. Run it with go generate
// beside the code that registers the functions, and embed the file:
//
//	//go:generate go run github.com/fnapi/fnapi/doc/gencomments -out comments.json .
//	//go:embed comments.json
//	var comments []byte
//
//	reg := registry.New(registry.Comments(comments))
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "gencomments:", err)
		os.Exit(1)
	}
}

// run is the command with its arguments and outputs.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gencomments", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "write the JSON to this file instead of the standard output")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gencomments [-out file] [packages]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	patterns := fs.Args()
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	pkgs, err := listPackages(ctx, patterns)
	if err != nil {
		return err
	}
	comments := map[string]string{}
	for _, p := range pkgs {
		if err := p.collect(comments); err != nil {
			return err
		}
	}
	data, err := encode(comments)
	if err != nil {
		return err
	}
	if *out == "" {
		_, err = stdout.Write(data)
		return err
	}
	return os.WriteFile(*out, data, 0o644)
}
