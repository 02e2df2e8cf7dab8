package client_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/stream"
)

func Example() {
	// A server with one streaming function, over TLS.
	reg := registry.New()
	reg.MustRegister("count", func(ctx context.Context, n int, s *stream.Sender[int]) error {
		for i := range n {
			if err := s.Send(i); err != nil {
				return err
			}
		}
		return nil
	}, registry.Args("n"), registry.Requires(decl.Public))
	api, _ := fnapi.New(reg)
	srv := httptest.NewTLSServer(http.StripPrefix("/api", api))
	defer srv.Close()

	ctx := context.Background()
	c, _ := client.New(srv.URL+"/api", client.WithHTTPClient(srv.Client()))
	var all []int // a non-streaming call answers the accumulated chunks
	if err := c.Call(ctx, "count", map[string]int{"n": 3}, &all); err != nil {
		panic(err)
	}
	fmt.Println("call:", all)

	ws, err := client.DialWS(ctx, "wss"+strings.TrimPrefix(srv.URL, "https")+"/api/ws", client.WithHTTPClient(srv.Client()))
	if err != nil {
		panic(err)
	}
	defer ws.Close()
	for chunk, err := range ws.Stream(ctx, "count", map[string]int{"n": 3}) {
		if err != nil {
			panic(err)
		}
		fmt.Println("chunk:", string(chunk))
	}
	// Output:
	// call: [0 1 2]
	// chunk: 0
	// chunk: 1
	// chunk: 2
}
