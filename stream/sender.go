package stream

import (
	"context"
	"errors"
	"reflect"

	"github.com/fnapi/fnapi/internal/streamlink"
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

// bind attaches s to a call's sink, before the function runs (streamlink.Bind).
func (s *Sender[T]) bind(ctx context.Context, sink Sink) {
	s.ctx, s.sink = ctx, sink
}

func (*Sender[T]) chunkType() reflect.Type { return reflect.TypeFor[T]() }

// binder is implemented by *Sender[T] for every T.
type binder interface {
	bind(ctx context.Context, sink Sink)
	chunkType() reflect.Type
}

func init() {
	streamlink.Sender = reflect.TypeFor[binder]()
	streamlink.Bind = func(s any, ctx context.Context, sink streamlink.Sink) { s.(binder).bind(ctx, sink) }
	streamlink.ChunkType = func(s any) reflect.Type { return s.(binder).chunkType() }
	streamlink.Start = func(a any) streamlink.State { return a.(Accumulator).start() }
}
