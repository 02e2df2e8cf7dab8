package stream

import (
	"fmt"
	"reflect"

	"github.com/fnapi/fnapi/internal/streamlink"
)

// Accumulator describes how the chunks of a streaming function build the one result of a
// non-streaming call of it. Build it with Append, Last or Func.
type Accumulator struct {
	// Mode names the accumulation for the documentation: "append", "replace" or "custom".
	Mode  string
	chunk reflect.Type
	out   reflect.Type
	start func() streamlink.State
}

// ChunkType returns the type of the chunks the accumulator takes.
func (a Accumulator) ChunkType() reflect.Type { return a.chunk }

// ResultType returns the type of the result it builds.
func (a Accumulator) ResultType() reflect.Type { return a.out }

// Check returns an error when the accumulator does not take chunks of type t.
func (a Accumulator) Check(t reflect.Type) error {
	if a.start == nil {
		return fmt.Errorf("stream: zero Accumulator; use Append, Last or Func")
	}
	if a.chunk != t {
		return fmt.Errorf("stream: accumulator takes chunks of type %v, the function sends %v", a.chunk, t)
	}
	return nil
}

// Append returns the accumulator that collects every chunk into an array, in order: each chunk
// holds new values. A call that sends no chunk results in an empty array.
func Append[T any]() Accumulator {
	return Accumulator{
		Mode:  "append",
		chunk: reflect.TypeFor[T](),
		out:   reflect.TypeFor[[]T](),
		start: func() streamlink.State { return &appendState[T]{all: []T{}} },
	}
}

type appendState[T any] struct{ all []T }

func (s *appendState[T]) Add(c any)   { s.all = append(s.all, c.(T)) }
func (s *appendState[T]) Result() any { return s.all }

// AppendOf is Append for chunks of a type known only at run time: the result is a slice of t.
// The registry uses it as the default accumulator.
func AppendOf(t reflect.Type) Accumulator {
	st := reflect.SliceOf(t)
	return Accumulator{
		Mode:  "append",
		chunk: t,
		out:   st,
		start: func() streamlink.State { return &reflectAppend{t: t, all: reflect.MakeSlice(st, 0, 0)} },
	}
}

type reflectAppend struct {
	t   reflect.Type
	all reflect.Value
}

func (s *reflectAppend) Add(c any) {
	v := reflect.ValueOf(c)
	if !v.IsValid() { // a nil chunk of an interface type
		v = reflect.Zero(s.t)
	}
	s.all = reflect.Append(s.all, v)
}

func (s *reflectAppend) Result() any { return s.all.Interface() }

// Last returns the accumulator whose result is the last chunk sent: each chunk replaces the one
// before. A call that sends no chunk results in T's zero value.
func Last[T any]() Accumulator {
	return Accumulator{
		Mode:  "replace",
		chunk: reflect.TypeFor[T](),
		out:   reflect.TypeFor[T](),
		start: func() streamlink.State { return new(lastState[T]) },
	}
}

type lastState[T any] struct{ last T }

func (s *lastState[T]) Add(c any)   { s.last = c.(T) }
func (s *lastState[T]) Result() any { return s.last }

// Func returns an accumulator that folds each chunk into the result with add, starting from R's
// zero value: for chunks that mix new, updated and informative values.
func Func[T, R any](add func(acc R, chunk T) R) Accumulator {
	return Accumulator{
		Mode:  "custom",
		chunk: reflect.TypeFor[T](),
		out:   reflect.TypeFor[R](),
		start: func() streamlink.State { return &funcState[T, R]{add: add} },
	}
}

type funcState[T, R any] struct {
	add func(R, T) R
	acc R
}

func (s *funcState[T, R]) Add(c any)   { s.acc = s.add(s.acc, c.(T)) }
func (s *funcState[T, R]) Result() any { return s.acc }
