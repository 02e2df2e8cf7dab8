// Command hello is the first fnapi server of the README: a few functions over two API
// versions, served over HTTPS on loopback with a self-signed certificate.
//
//	go run ./examples/hello
//	curl -k 'https://127.0.0.1:8443/api/add?a=2&b=3'
package main

import (
	"context"
	"flag"
	"log"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
	"go.uber.org/zap"
)

// GreetArgs are the arguments of greet.
type GreetArgs struct {
	Name  string `json:"name" jsonschema:"description=Who to greet"`
	Times int    `json:"times" default:"1" jsonschema:"minimum=1,maximum=5,description=How many times"`
}

func greet(_ context.Context, in GreetArgs) (string, error) {
	return strings.TrimSpace(strings.Repeat("Hello, "+in.Name+"! ", in.Times)), nil
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8443", "address to serve HTTPS on")
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

// newMux registers the functions and mounts the API under /api.
func newMux(logger *zap.Logger) (*http.ServeMux, error) {
	reg := registry.New()
	fnapi.MustRegisterBuiltins(reg) // echo, doc, get-api-version, cancel
	public := registry.Requires(decl.Public)
	reg.MustRegister("add", func(a, b float64) float64 { return a + b },
		registry.Args("a", "b"), registry.Describe("Adds two numbers."), public)
	reg.MustRegister("greet", greet, registry.Describe("Greets someone."), public, registry.Since("1.1"))

	api, err := fnapi.New(reg, fnapi.WithLogger(logger))
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", api))
	return mux, nil
}
