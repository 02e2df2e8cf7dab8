package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/stream"
)

type SquaresArgs struct {
	N int `json:"n" jsonschema:"minimum=0,maximum=100"`
}

type Square struct {
	N, Square int
}

// Squares is declared once, in a package the server and its clients import.
var Squares = decl.Stream[SquaresArgs, Square]("squares", decl.Requires(decl.Public))

func ExampleStream() {
	reg := registry.New()
	registry.MustImplementStream(reg, Squares, func(ctx context.Context, in SquaresArgs, s *stream.Sender[Square]) error {
		for i := 1; i <= in.N; i++ {
			if err := s.Send(Square{i, i * i}); err != nil {
				return err
			}
		}
		return nil
	})
	api, _ := fnapi.New(reg)
	srv := httptest.NewTLSServer(http.StripPrefix("/api", api))
	defer srv.Close()

	ctx := context.Background()
	ws, err := client.DialWS(ctx, "wss"+strings.TrimPrefix(srv.URL, "https")+"/api/ws", client.WithHTTPClient(srv.Client()))
	if err != nil {
		panic(err)
	}
	defer ws.Close()
	for sq, err := range client.Stream(ctx, ws, Squares, SquaresArgs{N: 3}) {
		if err != nil {
			panic(err)
		}
		fmt.Println(sq.N, sq.Square) // sq is a Square
	}
	// The arguments' schema still holds: an answer from the server is an *apierr.Error.
	for _, err := range client.Stream(ctx, ws, Squares, SquaresArgs{N: 101}) {
		var e *apierr.Error
		fmt.Println(errors.As(err, &e), e.Code(), e.Attr("name"))
	}
	// Output:
	// 1 1
	// 2 4
	// 3 9
	// true INVALID-ARGUMENT n
}
