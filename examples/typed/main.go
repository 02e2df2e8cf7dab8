// Command typed is a server whose functions are declared once, with their Go types, in package
// notes, which its Go client (examples/typed/client) imports too: the compiler checks both
// sides, so a renamed argument or a changed result breaks the build instead of a call.
//
//	go run ./examples/typed -addr 127.0.0.1:8444
//	go run ./examples/typed/client -url https://127.0.0.1:8444/api -insecure add "buy milk"
package main

import (
	"context"
	"flag"
	"log"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/examples/typed/notes"
	"github.com/fnapi/fnapi/registry"
	"go.uber.org/zap"
)

// maxNotes bounds what callers can make the server keep: past it, the oldest note goes.
const maxNotes = 1000

// book keeps the notes in memory.
type book struct {
	mu    sync.Mutex
	next  int
	notes []notes.Note
}

func (b *book) add(_ context.Context, in notes.AddArgs) (notes.Note, error) {
	if len(in.Text) > notes.MaxText {
		return notes.Note{}, apierr.New(notes.TooLong, "limit", notes.MaxText)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.next++
	n := notes.Note{ID: b.next, Text: in.Text}
	if len(b.notes) == maxNotes {
		b.notes = b.notes[1:]
	}
	b.notes = append(b.notes, n)
	return n, nil
}

func (b *book) list(_ context.Context, in notes.ListArgs) ([]notes.Note, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := []notes.Note{}
	for _, n := range b.notes {
		if strings.Contains(n.Text, in.Contains) {
			out = append(out, n)
		}
	}
	return out, nil
}

// newMux implements the declarations and mounts the API under /api.
func newMux(logger *zap.Logger) (*http.ServeMux, error) {
	reg := registry.New()
	fnapi.MustRegisterBuiltins(reg)
	b := &book{}
	registry.MustImplement(reg, notes.Add, b.add)
	registry.MustImplement(reg, notes.List, b.list, registry.ReadOnly())
	api, err := fnapi.New(reg, fnapi.WithLogger(logger))
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", api))
	return mux, nil
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8444", "address to serve HTTPS on")
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
