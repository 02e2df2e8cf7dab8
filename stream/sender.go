package stream

import (
	"context"
	"errors"
	"reflect"
)

// Sink receives the chunks of one streaming call: the framework's transports implement it.
// Send blocks while the client is slow to read, and returns an error once the call's context is
// done or the client has gone away. A Sink is used by one goroutine at a time.
type Sink interface {
	Send(ctx context.Context, chunk any) error
}

// ErrUnbound is returned by Send on a Sender the framework did not give to the function.
var ErrUnbound = errors.New("stream: sender is not bound to a call")

// Sender sends chunks of type T to the caller of a streaming function. The framework creates one
// per call and passes it to the function; Send must not be called after the function returns.
// Send is not safe for concurrent use: a function that produces chunks in several goroutines
// serialises its calls.
type Sender[T any] struct {
	ctx  context.Context
	sink Sink
}

// Send sends one chunk. It blocks while the client is slow to read, and returns an error once
// the call is cancelled or the client has gone away; the function should then return.
func (s *Sender[T]) Send(chunk T) error {
	if s.sink == nil {
		return ErrUnbound
	}
	if err := s.ctx.Err(); err != nil {
		return err
	}
	return s.sink.Send(s.ctx, chunk)
}

// Bind attaches s to a call's sink. The framework calls it before the function runs; functions
// never need to.
func (s *Sender[T]) Bind(ctx context.Context, sink Sink) {
	s.ctx, s.sink = ctx, sink
}

// ChunkType returns T, the type of the chunks, for the function's documentation.
func (*Sender[T]) ChunkType() reflect.Type { return reflect.TypeFor[T]() }

// Binder is implemented by *Sender[T] for every T. The registry recognises a streaming function
// by a last parameter of a type that implements it.
type Binder interface {
	Bind(ctx context.Context, sink Sink)
	ChunkType() reflect.Type
}
