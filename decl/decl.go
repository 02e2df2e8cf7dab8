package decl

import (
	"fmt"
	"slices"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/version"
)

// None is the argument type of a function that takes no arguments.
type None = struct{}

// Function declares a function that answers one result of type Out to arguments of type In.
// Build it with Func. It is immutable and safe for concurrent use.
type Function[In, Out any] struct{ spec }

// StreamFunction declares a streaming function that sends chunks of type Chunk to arguments of
// type In. Build it with Stream. It is immutable and safe for concurrent use.
type StreamFunction[In, Chunk any] struct{ spec }

// Func declares the function name, taking In and answering Out. It panics on an invalid name
// (see CheckName) or option.
func Func[In, Out any](name string, opts ...Option) Function[In, Out] {
	return Function[In, Out]{newSpec(name, opts)}
}

// Stream declares the streaming function name, taking In and sending chunks of type Chunk. It
// panics on an invalid name (see CheckName) or option.
func Stream[In, Chunk any](name string, opts ...Option) StreamFunction[In, Chunk] {
	return StreamFunction[In, Chunk]{newSpec(name, opts)}
}

// spec is what a declaration says, whatever its types.
type spec struct {
	name        string
	since       version.Version
	sinceText   string // since, formatted once for clients' paths
	until       *version.Version
	access      Access
	role        string
	errors      []*apierr.Declaration
	description string
	readOnly    bool
}

// With returns a copy of f with opts applied after its own: for an application that serves a
// function declared by a library differently, e.g. from a later version. It panics on an
// invalid option, as Func does.
func (f Function[In, Out]) With(opts ...Option) Function[In, Out] {
	return Function[In, Out]{f.with(opts)}
}

// With is Function.With for a streaming function.
func (f StreamFunction[In, Chunk]) With(opts ...Option) StreamFunction[In, Chunk] {
	return StreamFunction[In, Chunk]{f.with(opts)}
}

func newSpec(name string, opts []Option) spec {
	if err := CheckName(name); err != nil {
		panic("decl: " + err.Error())
	}
	return spec{name: name, since: version.Version{Major: 1}}.with(opts)
}

// with returns a copy of s with opts applied, checked as newSpec checks them.
func (s spec) with(opts []Option) spec {
	s.errors = slices.Clone(s.errors)
	if s.until != nil {
		u := *s.until
		s.until = &u
	}
	for _, o := range opts {
		if err := o(&s); err != nil {
			panic(fmt.Sprintf("decl: %q: %v", s.name, err))
		}
	}
	if s.until != nil && !s.since.Less(*s.until) {
		panic(fmt.Sprintf("decl: %q: Until %v is not after Since %v", s.name, s.until, s.since))
	}
	s.sinceText = s.since.String()
	return s
}

// Name returns the function's name.
func (s spec) Name() string { return s.name }

// Since returns the API version the function appeared in (Since; default 1.0).
func (s spec) Since() version.Version { return s.since }

// SinceText returns Since formatted as MAJOR.MINOR.
func (s spec) SinceText() string { return s.sinceText }

// Until returns the API version that removed or replaced the function, and false when it has
// none.
func (s spec) Until() (version.Version, bool) {
	if s.until == nil {
		return version.Version{}, false
	}
	return *s.until, true
}

// Access returns the token the function needs (Requires; default Token).
func (s spec) Access() Access { return s.access }

// Role returns the role the function needs (Requires with a role), or "" when it names none.
func (s spec) Role() string { return s.role }

// Errors returns the declarations of the codes of its own the function may answer, besides
// apierr's catalogue.
func (s spec) Errors() []*apierr.Declaration { return slices.Clone(s.errors) }

// Description returns what Describe said of the function, or "".
func (s spec) Description() string { return s.description }

// ReadOnly reports whether the function is declared to change nothing (ReadOnly).
func (s spec) ReadOnly() bool { return s.readOnly }
