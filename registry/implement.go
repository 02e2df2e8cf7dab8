package registry

import (
	"context"
	"fmt"
	"reflect"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/stream"
	"github.com/fnapi/fnapi/version"
)

// Implement registers impl as the function d declares. The compiler checks impl against the
// declaration: a function whose arguments or result are not d's types does not build. The name,
// versions, access, declared errors and description come from d; opts add what only the server
// knows, such as Describe when d has no description. Everything Register checks holds, since
// Implement registers through it; an option that restates what d declares (Since, Until,
// Requires, Errors, Args, or Describe when d has a description) is refused, so that the server
// cannot serve something other than what its clients were built against. What the declaration
// says also overrides the options given to New for every function.
//
// For a declaration whose argument type is [decl.None], the function is served as one without
// arguments (a call that names any is UNKNOWN-ARGUMENTS).
func Implement[In, Out any](r *Registry, d decl.Function[In, Out], impl func(context.Context, In) (Out, error), opts ...Option) error {
	var fn any = impl
	if isNone[In]() {
		fn = func(ctx context.Context) (Out, error) {
			var in In
			return impl(ctx, in)
		}
	}
	return r.implement(d, fn, opts)
}

// ImplementStream is Implement for a streaming function; opts may set how its chunks
// accumulate (Accumulate; default [stream.Append]).
func ImplementStream[In, Chunk any](r *Registry, d decl.StreamFunction[In, Chunk], impl func(context.Context, In, *stream.Sender[Chunk]) error, opts ...Option) error {
	var fn any = impl
	if isNone[In]() {
		fn = func(ctx context.Context, s *stream.Sender[Chunk]) error {
			var in In
			return impl(ctx, in, s)
		}
	}
	return r.implement(d, fn, opts)
}

// MustImplement is like Implement but panics on an error. It is meant for set-up code.
func MustImplement[In, Out any](r *Registry, d decl.Function[In, Out], impl func(context.Context, In) (Out, error), opts ...Option) {
	if err := Implement(r, d, impl, opts...); err != nil {
		panic(err)
	}
}

// MustImplementStream is like ImplementStream but panics on an error.
func MustImplementStream[In, Chunk any](r *Registry, d decl.StreamFunction[In, Chunk], impl func(context.Context, In, *stream.Sender[Chunk]) error, opts ...Option) {
	if err := ImplementStream(r, d, impl, opts...); err != nil {
		panic(err)
	}
}

func isNone[T any]() bool { return reflect.TypeFor[T]() == reflect.TypeFor[decl.None]() }

// declaration is what Function and StreamFunction say, whatever their types.
type declaration interface {
	Name() string
	Since() version.Version
	Until() (version.Version, bool)
	Access() decl.Access
	Role() string
	Errors() []*apierr.Declaration
	Description() string
	ReadOnly() bool
}

func (r *Registry) implement(d declaration, fn any, opts []Option) error {
	if err := serverOnly(opts, d.Description() != "", d.Role() != ""); err != nil {
		return fmt.Errorf("registry: %q: %w", d.Name(), err)
	}
	declared := func(f *Func) error {
		f.Since = d.Since()
		if u, ok := d.Until(); ok {
			f.Until = &u
		}
		f.Access = d.Access()
		if r := d.Role(); r != "" {
			f.Role = r
		}
		f.Errors = append(f.Errors, d.Errors()...)
		if s := d.Description(); s != "" {
			f.Description = s
		}
		f.ReadOnly = f.ReadOnly || d.ReadOnly()
		return nil
	}
	return r.Register(d.Name(), fn, append([]Option{declared}, opts...)...)
}

// serverOnly refuses options that would change what a declaration says.
func serverOnly(opts []Option, described, hasRole bool) error {
	unset := version.Version{Major: -1}
	probe := &Func{Since: unset, Access: -1}
	for _, o := range opts {
		if err := o(probe); err != nil {
			return err
		}
	}
	var which []string
	if probe.Since != unset {
		which = append(which, "Since")
	}
	if probe.Until != nil {
		which = append(which, "Until")
	}
	if probe.Access != -1 || hasRole && probe.Role != "" {
		which = append(which, "Requires")
	}
	if len(probe.Errors) > 0 {
		which = append(which, "Errors")
	}
	if probe.argNames != nil {
		which = append(which, "Args")
	}
	if described && probe.Description != "" {
		which = append(which, "Describe")
	}
	if which != nil {
		return fmt.Errorf("%v: the declaration says this; change it there", which)
	}
	return nil
}
