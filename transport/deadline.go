package transport

import (
	"context"
	"sync"
	"time"
)

// callCtx is the context of one call: its parent's, with the call's deadline. It stands for
// context.WithDeadline(parent, deadline), which makes a timer and a channel for every call, and
// makes that real context (see real) only at the first call of Done, AfterFunc, or Value with a
// key other than the connection's. Deriving a context from it ([context.WithCancel],
// WithTimeout, ...) asks for Value and Done, and so makes it too; a value set with
// [context.WithValue] above it is found without it. Until then Err and Deadline compare the
// clock with the deadline, so a call that only checks Err makes no timer. The context package
// finds the real context through AfterFunc, so no goroutine watches a derived context.
type callCtx struct {
	parent   context.Context
	deadline time.Time
	conn     *wsConn // for CancelCall, over WebSocket
	key, val any     // an endpoint's value (Exchange.CallWithValue); key nil: none

	mu     sync.Mutex
	inner  context.Context // context.WithDeadline(parent, deadline), once Done was asked for
	cancel context.CancelFunc
	ended  bool
}

// newCallCtx returns the context of a call ending at the deadline (or with its parent), and
// the function that releases it once the call has returned.
func newCallCtx(parent context.Context, timeout time.Duration, conn *wsConn) (*callCtx, context.CancelFunc) {
	c := &callCtx{parent: parent, deadline: time.Now().Add(timeout), conn: conn}
	if d, ok := parent.Deadline(); ok && d.Before(c.deadline) {
		c.deadline = d
	}
	return c, c.end
}

// real returns the [context.WithDeadline] the call's context stands for, making it once.
func (c *callCtx) real() context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inner == nil {
		c.inner, c.cancel = context.WithDeadline(c.parent, c.deadline)
		if c.ended {
			c.cancel()
		}
	}
	return c.inner
}

// end releases the timer, if one was made; the context is then done ([context.Canceled]).
func (c *callCtx) end() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ended = true
	if c.cancel != nil {
		c.cancel()
	}
}

func (c *callCtx) Deadline() (time.Time, bool) { return c.deadline, true }

func (c *callCtx) Done() <-chan struct{} { return c.real().Done() }

func (c *callCtx) Err() error {
	c.mu.Lock()
	inner, ended := c.inner, c.ended
	c.mu.Unlock()
	switch {
	case inner != nil:
		return inner.Err()
	case ended:
		return context.Canceled
	}
	if err := c.parent.Err(); err != nil {
		return err
	}
	if !time.Now().Before(c.deadline) {
		return context.DeadlineExceeded
	}
	return nil
}

// Value answers the connection for CancelCall and an endpoint's value; other keys go to the
// real context, so that
// the context package's own lookups ([context.Cause], WithCancel finding its parent) see the
// call's deadline rather than the parent's.
func (c *callCtx) Value(key any) any {
	if _, ok := key.(wsConnKey); ok && c.conn != nil {
		return c.conn
	}
	if c.key != nil && key == c.key {
		return c.val
	}
	return c.real().Value(key)
}

// AfterFunc lets [context.WithCancel] and its kin of a call's context follow it without a
// goroutine of their own (see [context.AfterFunc]).
func (c *callCtx) AfterFunc(f func()) func() bool {
	return context.AfterFunc(c.real(), f)
}

func (c *callCtx) String() string { return "transport.callCtx" }
