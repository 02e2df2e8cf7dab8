package fnapi_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/stream"
)

// A first API: two functions, one of them streaming, served under /api.
func ExampleNew() {
	reg := registry.New()
	fnapi.MustRegisterBuiltins(reg)
	public := registry.Requires(decl.Public)
	reg.MustRegister("add", func(a, b int) int { return a + b }, registry.Args("a", "b"), public)
	reg.MustRegister("count", func(ctx context.Context, in struct {
		To int `json:"to" jsonschema:"minimum=0,maximum=100"`
	}, s *stream.Sender[int]) error {
		for i := 1; i <= in.To; i++ {
			if err := s.Send(i); err != nil {
				return err
			}
		}
		return nil
	}, public)

	api, err := fnapi.New(reg)
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", api))
	srv := httptest.NewTLSServer(mux)
	defer srv.Close()

	for _, path := range []string{
		"/api/add?a=2&b=3",
		"/api/add?a=2",
		"/api/count?to=3",
		"/api/stream/count?to=2",
		"/api/1.0/echo?name=" + url.QueryEscape(`"Ann"`),
	} {
		res, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			panic(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		fmt.Printf("%d %s\n", res.StatusCode, bytes.TrimSpace(body))
	}
	// Output:
	// 200 {"type":"result","result":5}
	// 400 {"type":"error","error":"TOO-FEW-ARGUMENTS","count":2,"names":["a","b"]}
	// 200 {"type":"result","result":[1,2,3]}
	// 200 {"type":"chunk","chunk":1}
	// {"type":"chunk","chunk":2}
	// {"type":"end"}
	// 200 {"type":"result","result":{"name":"Ann"}}
}
