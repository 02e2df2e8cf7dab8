// Command streaming serves a function that streams: it sends its values as they come, and the
// same function called without stream/ answers them all at once.
//
//	go run ./examples/streaming
//	curl -kN 'https://127.0.0.1:8445/api/stream/countdown?from=3'                    # NDJSON
//	curl -kN -H 'Accept: text/event-stream' 'https://127.0.0.1:8445/api/stream/countdown?from=3'
//	curl -k 'https://127.0.0.1:8445/api/countdown?from=3'                            # one result
//
// Over the WebSocket, {"id":1,"stream":"countdown","args":{"from":3}} streams it, and
// {"id":2,"call":"cancel","args":{"id":"1"}} stops it.
package main

import (
	"context"
	"flag"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/stream"
	"go.uber.org/zap"
)

// CountArgs are the arguments of countdown.
type CountArgs struct {
	// From is the first number sent.
	From int `json:"from" jsonschema:"minimum=0,maximum=100"`
	// Every is the pause between two numbers, in milliseconds.
	Every int `json:"every,omitempty" default:"100" jsonschema:"minimum=0,maximum=1000"`
}

// Tick is one chunk of countdown.
type Tick struct {
	N int `json:"n"`
}

// countdown sends From, From-1, ..., 0, pausing Every milliseconds between them. A cancelled
// call (the client went away, or called cancel) ends at once: Send fails, or ctx is done.
func countdown(ctx context.Context, in CountArgs, s *stream.Sender[Tick]) error {
	t := time.NewTicker(time.Duration(max(in.Every, 1)) * time.Millisecond)
	defer t.Stop()
	for n := in.From; n >= 0; n-- {
		if err := s.Send(Tick{N: n}); err != nil {
			return err
		}
		if n == 0 {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

// newMux registers countdown and mounts the API under /api. Its chunks accumulate by
// appending (stream.Append, the default), so a call without stream/ answers [{"n":3},...].
func newMux(logger *zap.Logger) (*http.ServeMux, error) {
	reg := registry.New()
	fnapi.MustRegisterBuiltins(reg) // cancel among them, for the WebSocket
	reg.MustRegister("countdown", countdown, registry.Requires(decl.Public), registry.ReadOnly(),
		registry.Accumulate(stream.Append[Tick]()), registry.Describe("Counts down from a number."))
	api, err := fnapi.New(reg, fnapi.WithLogger(logger))
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", api))
	return mux, nil
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8445", "address to serve HTTPS on")
	data := flag.String("data", "./data", "directory for the generated TLS certificate")
	flag.Parse()
	logger, _ := zap.NewProduction()
	defer func() { _ = logger.Sync() }()
	mux, err := newMux(logger)
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv := &fnapi.Server{Addr: *addr, Handler: mux, DataDir: *data, Logger: logger}
	if err := srv.ListenAndServe(ctx); err != nil {
		log.Fatal(err)
	}
}
