// Package sampleapi is the API the tests of package doc describe: two versions, a streaming
// function, defaults, and descriptions from tags and from Go doc comments (comments.json,
// written by go generate).
package sampleapi

import (
	"context"
	_ "embed"
	"fmt"
	"net/http"
	"strings"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/stream"
)

//go:generate go run ../../gencomments -out comments.json .

//go:embed comments.json
var comments []byte

// GreetArgs are the arguments of greet.
type GreetArgs struct {
	// Name is who to greet.
	Name  string   `json:"name"`
	Times int      `json:"times" default:"1" jsonschema:"minimum=1,maximum=3,description=How many times to say hello."`
	Tags  []string `json:"tags,omitempty"` // Tags are appended to the greeting.
}

// Greet says hello to someone.
//
// It repeats the greeting Times times.
func Greet(_ context.Context, in GreetArgs) (string, error) {
	return strings.TrimSpace(strings.Repeat("hello "+in.Name+" ", in.Times) + strings.Join(in.Tags, ",")), nil
}

// CountArgs are the arguments of count.
type CountArgs struct {
	// To is the last number sent.
	To int `json:"to" jsonschema:"minimum=1,maximum=100"`
}

// Progress is one chunk of count.
type Progress struct {
	// N is the number reached.
	N int `json:"n"`
}

// Count sends the numbers from 1 to To, one chunk each.
func Count(ctx context.Context, in CountArgs, s *stream.Sender[Progress]) error {
	for i := 1; i <= in.To; i++ {
		if err := s.Send(Progress{N: i}); err != nil {
			return err
		}
	}
	return nil
}

// NotANote: the name given to find is that of something other than a note.
var NotANote = apierr.Declare("NOT-A-NOTE", http.StatusUnprocessableEntity,
	"The name is that of something other than a note.",
	apierr.Attr("name", "the name given").Typed("string"),
	apierr.Attr("kind", "what the name is instead"))

// Lookup finds a note by its name.
type Lookup struct{}

// Find answers the note named name, or NOT-FOUND.
func (Lookup) Find(_ context.Context, in struct {
	Name string `json:"name" jsonschema:"minLength=1"`
}) (string, error) {
	switch in.Name {
	case "hello":
		return "world", nil
	case "todo":
		return "", apierr.New(NotANote, "name", in.Name, "kind", "list")
	}
	return "", apierr.New(apierr.NotFound, "name", in.Name)
}

// Forget is a function without arguments nor result.
func Forget() {}

// Registry returns the sample API: greet (public) and add (named plain parameters, a token) in
// 1.0; count (streaming, keeping the last chunk), find (a session, read-only, a declared error code) and
// forget in 1.1.
func Registry() (*registry.Registry, error) {
	reg := registry.New(registry.Comments(comments))
	for _, r := range []struct {
		name string
		fn   any
		opts []registry.Option
	}{
		{"greet", Greet, []registry.Option{registry.Requires(decl.Public)}},
		{"add", func(a, b int) int { return a + b }, []registry.Option{registry.Args("a", "b"), registry.Describe("Adds two integers.")}},
		{"count", Count, []registry.Option{registry.Since("1.1"), registry.Accumulate(stream.Last[Progress]())}},
		{"find", Lookup{}.Find, []registry.Option{registry.Since("1.1"), registry.Requires(decl.Session), registry.ReadOnly(), registry.Errors(NotANote, apierr.NotFound)}},
		{"forget", Forget, []registry.Option{registry.Since("1.1"), registry.Requires(decl.Public)}},
	} {
		if err := reg.Register(r.name, r.fn, r.opts...); err != nil {
			return nil, fmt.Errorf("sampleapi: %w", err)
		}
	}
	return reg, nil
}
