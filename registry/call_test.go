package registry_test

import (
	"net/http"
	"testing"

	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/stream"
)

// TestCallWithoutTransport holds what a call made without a transport (a test's, or
// registry.Invoke's by hand) reports: no transport facts, the default names, no cookie set,
// non-streaming mode whatever an interceptor wraps.
func TestCallWithoutTransport(t *testing.T) {
	t.Parallel()
	c := &registry.Call{}
	if c.Transport() != "" || c.ID() != "" || c.RemoteAddr() != "" || c.Header() != nil || c.Meta() != nil ||
		c.ArgsUnread() || c.Probe() {
		t.Errorf("a call without a transport has facts: %q %q %q %v %v %v %v", c.Transport(), c.ID(),
			c.RemoteAddr(), c.Header(), c.Meta(), c.ArgsUnread(), c.Probe())
	}
	if c.SetCookie(&http.Cookie{Name: "a", Value: "b"}) {
		t.Error("SetCookie reported a cookie set without a transport")
	}
	want := decl.Names{}.OrDefaults()
	if got := c.Names(); got != want {
		t.Errorf("Names() = %+v, want the defaults %+v", got, want)
	}
	if got := (*registry.Call)(nil).Names(); got != want {
		t.Errorf("Names() of no call = %+v, want the defaults %+v", got, want)
	}
	wrapped := false
	c.WrapSink(func(next stream.Sink) stream.Sink { wrapped = true; return next })
	if wrapped || c.Sink() != nil {
		t.Error("WrapSink turned a non-streaming call into a streaming one")
	}
}
