package main

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/client"
	"go.uber.org/zap"
)

// TestHello calls the README's first server as its curl examples do.
func TestHello(t *testing.T) {
	mux, err := newMux(zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewTLSServer(mux)
	defer srv.Close()
	ctx := context.Background()
	c, _ := client.New(srv.URL+"/api", client.WithHTTPClient(srv.Client()))
	var sum float64
	if err := c.Call(ctx, "add", map[string]any{"a": 2, "b": 3}, &sum); err != nil || sum != 5 {
		t.Fatalf("add = %v, %v", sum, err)
	}
	var hello string
	if err := c.Call(ctx, "greet", map[string]any{"name": "Ann", "times": 2}, &hello); err != nil || hello != "Hello, Ann! Hello, Ann!" {
		t.Fatalf("greet = %q, %v", hello, err)
	}
	v10, _ := client.New(srv.URL+"/api", client.WithHTTPClient(srv.Client()), client.WithVersion("1.0"))
	var e *apierr.Error
	if err := v10.Call(ctx, "greet", map[string]any{"name": "Ann"}, nil); !errors.As(err, &e) || e.Code() != apierr.UnknownFunction.Code() {
		t.Fatalf("greet at 1.0: %v", err)
	}
	if err := c.Call(ctx, "greet", map[string]any{"name": "Ann", "times": 9}, nil); !errors.As(err, &e) || e.Code() != apierr.InvalidArgument.Code() || e.Attr("name") != "times" {
		t.Fatalf("times 9: %v", err)
	}
}
