package transport_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/internal/calllink"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/transport"
	"github.com/fnapi/fnapi/version"
)

func TestRateLimit(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	limit := transport.RateLimit{PerSecond: 2, Burst: 3, Now: func() time.Time { return now }, MaxKeys: 2}
	reg := registry.New()
	reg.MustRegister("f", func() int { return 1 }, registry.Requires(decl.Public))
	f := reg.Lookup(version.MustParse("1.0"), "f")
	h := registry.Chain(registry.Invoke, limit.Interceptor())
	call := func(addr string) error {
		_, err := h(context.Background(), callFrom(f, addr))
		return err
	}
	for i := range 3 {
		if err := call("192.0.2.1:1000"); err != nil {
			t.Fatalf("call %d within the burst: %v", i, err)
		}
	}
	err := call("192.0.2.1:1001")
	var e *apierr.Error
	if !errors.As(err, &e) || e.Code() != apierr.RateLimited.Code() || fmt.Sprint(e.Attr("retry_after")) != "1" {
		t.Fatalf("past the burst: %v", err)
	}
	if err := call("192.0.2.2:1000"); err != nil {
		t.Fatalf("another client is limited too: %v", err)
	}
	now = now.Add(500 * time.Millisecond) // one token back at 2 a second
	if err := call("192.0.2.1:1000"); err != nil {
		t.Fatalf("after the refill: %v", err)
	}
	if err := call("192.0.2.1:1000"); err == nil {
		t.Fatal("a second call after one token came back was admitted")
	}
	// An IPv6 client counts by its /64.
	for i := range 3 {
		if err := call(fmt.Sprintf("[2001:db8::%d]:443", i+1)); err != nil {
			t.Fatal(err)
		}
	}
	if err := call("[2001:db8::99]:443"); err == nil {
		t.Fatal("a /64 got more than its burst by changing addresses")
	}
}

func TestCallClient(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{
		"192.0.2.1:443":         "192.0.2.1",
		"[2001:db8::1:2]:443":   "2001:db8::/64",
		"[::ffff:192.0.2.1]:80": "192.0.2.1",
		"pipe":                  "pipe",
	} {
		if got := callFrom(nil, addr).Client(); got != want {
			t.Errorf("Client() of %q = %q, want %q", addr, got, want)
		}
	}
}

// callFrom returns a call of f from the network address addr, as a transport makes it.
func callFrom(f *registry.Func, addr string) *registry.Call {
	c := &registry.Call{Func: f}
	calllink.Of(c).RemoteAddr = addr
	return c
}
