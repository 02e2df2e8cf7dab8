// Command mcpeverything serves, over the Model Context Protocol, the tools, resources and
// prompts that the scenarios of the protocol's conformance suite (@modelcontextprotocol/
// conformance, "server" suite) expect, each written as an ordinary fnapi function. It is a
// test fixture, not a service: plain HTTP on loopback, no token.
//
//	go run . -addr 127.0.0.1:3001
//	npx @modelcontextprotocol/conformance server --url http://127.0.0.1:3001/mcp
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/mcp"
	"github.com/fnapi/fnapi/registry"
	"go.uber.org/zap"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:3001", "loopback `HOST:PORT` to serve on")
	flag.Parse()
	log, _ := zap.NewProduction()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *addr, log); err != nil {
		log.Fatal("mcpeverything", zap.Error(err))
	}
}

// run serves until ctx is done.
func run(ctx context.Context, addr string, log *zap.Logger) error {
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err != nil || (host != "localhost" && (ip == nil || !ip.IsLoopback())) {
		return fmt.Errorf("-addr %q: a loopback address only (this server has no authentication)", addr)
	}
	h, err := handler(log)
	if err != nil {
		return err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	log.Info("mcpeverything: serving MCP", zap.String("url", "http://"+ln.Addr().String()+"/mcp"))
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// handler is the fnapi handler with MCP on, mounted at the root: /mcp.
func handler(log *zap.Logger) (http.Handler, error) {
	reg := registry.New()
	if err := register(reg); err != nil {
		return nil, err
	}
	return fnapi.New(reg, fnapi.WithLogger(log), fnapi.WithNames(decl.Names{MountPath: "/"}),
		fnapi.WithMCP(mcp.Options{Name: "mcpeverything", Version: "1.0.0", Resources: resources, Prompts: prompts,
			Tasks: taskTools, TasksRequired: requiredTasks, AskBeforeTask: askFirst, InputSchemas: inputSchemas,
			// The suite runs every scenario from one address, one anonymous caller, and its
			// tasks are kept an hour once ended: more than the default 16.
			TasksPerCaller: 1000}))
}
