package registry

import (
	"context"
	"fmt"
	"reflect"
	"runtime/debug"
	"sync"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/internal/streamlink"
)

// Invoke is the Handler at the centre of every chain: it binds the call's arguments and runs
// the function. In non-streaming mode (c.Sink() nil) it returns the function's result, the
// accumulated chunks for a streaming function. In streaming mode it sends the chunks to c.Sink()
// (a non-streaming function's result as one chunk) and returns nil, nil when the function
// succeeds; the transport then sends the end message.
func Invoke(ctx context.Context, c *Call) (result any, err error) {
	f := c.Func
	st := invokePool.Get().(*invokeState)
	defer st.release()
	in := st.in[:0]
	if f.hasCtx {
		// A Value of the interface type itself: reflect.Value.Call then skips the check that
		// the context's dynamic type implements context.Context, which costs more than the
		// rest of the call's argument handling.
		st.ctx = ctx
		in = append(in, reflect.ValueOf(&st.ctx).Elem())
	}
	in, err = f.bind(c.Args, in)
	st.in = in
	if err != nil {
		return nil, err
	}
	var state streamlink.State
	if f.Streaming {
		sender := reflect.New(f.sender.Elem())
		sink := c.facts.Sink
		if sink == nil {
			state = streamlink.Start(f.Accumulator)
			sink = accumulate{state}
		}
		streamlink.Bind(sender.Interface(), ctx, sink)
		in = append(in, sender)
		st.in = in
	}
	c.facts.Ran = true
	out, err := f.call(in)
	if err != nil {
		return nil, err
	}
	switch {
	case state != nil:
		return state.Result(), nil
	case c.facts.Sink != nil && !f.Streaming:
		return nil, c.facts.Sink.Send(ctx, out)
	}
	return out, nil
}

// invokeState holds what one Invoke needs beside the arguments' own values, reused across
// calls: the function's argument list and the context it is given.
type invokeState struct {
	ctx context.Context
	in  []reflect.Value
}

var invokePool = sync.Pool{New: func() any { return &invokeState{in: make([]reflect.Value, 0, 4)} }}

func (st *invokeState) release() {
	clear(st.in[:cap(st.in)]) // drop the references to this call's values
	st.in = st.in[:0]
	st.ctx = nil
	if cap(st.in) <= 64 {
		invokePool.Put(st)
	}
}

// call runs the function, turning a panic into INTERNAL-ERROR whose cause holds the stack.
func (f *Func) call(in []reflect.Value) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			result = nil
			err = apierr.New(apierr.Internal).Wrap(fmt.Errorf("registry: %q panicked: %v\n%s", f.Name, p, debug.Stack()))
		}
	}()
	out := f.fn.Call(in)
	if f.outErr {
		if e := out[len(out)-1]; !e.IsNil() {
			return nil, e.Interface().(error)
		}
	}
	if f.outValue {
		return out[0].Interface(), nil
	}
	return nil, nil
}

// accumulate is the sink of a streaming function called in non-streaming mode.
type accumulate struct{ state streamlink.State }

func (a accumulate) Send(_ context.Context, chunk any) error {
	a.state.Add(chunk)
	return nil
}
