// Package streamlink lets the registry and the protocol endpoints reach what package stream
// keeps out of its API: binding a Sender to a call, and the state that accumulates the chunks
// of one call. Package stream fills it in when it is initialised, so that a package that
// imports both finds it set.
package streamlink

import (
	"context"
	"reflect"
)

// Sink is stream.Sink: it receives the chunks of one streaming call.
type Sink interface {
	Send(ctx context.Context, chunk any) error
}

// State accumulates the chunks of one call.
type State interface {
	// Add adds one chunk, of the function's chunk type.
	Add(chunk any)
	// Result returns the accumulated result.
	Result() any
}

var (
	// Sender is the interface type that *stream.Sender[T] implements for every T: a streaming
	// function is one whose last parameter's type implements it.
	Sender reflect.Type
	// Bind attaches sender, a *stream.Sender[T], to a call's context and sink.
	Bind func(sender any, ctx context.Context, sink Sink)
	// ChunkType returns T, the chunk type of sender, a *stream.Sender[T].
	ChunkType func(sender any) reflect.Type
	// Start returns a new, empty state for one call of acc, a stream.Accumulator.
	Start func(acc any) State
)
