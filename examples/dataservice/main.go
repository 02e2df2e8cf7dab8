// Command dataservice is the example data service built on fnapi: traffic records collected
// (the ingest function and a -demo generator), a query language over them, dashboards, widgets,
// users, API keys and configuration, served over HTTPS and WebSocket only.
//
//	dataservice [-addr 127.0.0.1:8443] [-data ./data] [-cert F -key F] [-host NAME] [-demo]
//	            [-session-idle 1h] [-session-max 24h] [-log-level info]
//	            [-clickhouse URL [-clickhouse-cluster NAME]] [-postgres URL] [-drain 0s]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// hosts collects repeated -host flags.
type hosts []string

func (h *hosts) String() string     { return strings.Join(*h, ",") }
func (h *hosts) Set(v string) error { *h = append(*h, v); return nil }

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "dataservice:", err)
		os.Exit(1)
	}
}

func run() error {
	var names hosts
	addr := flag.String("addr", "127.0.0.1:8443", "address to serve HTTPS on")
	data := flag.String("data", "./data", "directory of everything the service keeps")
	cert := flag.String("cert", "", "site certificate (PEM, with its chain); default: a self-signed one in <data>/tls")
	key := flag.String("key", "", "key of the site certificate (PEM)")
	flag.Var(&names, "host", "a name the self-signed certificate also covers (repeatable)")
	demoFlag := flag.Bool("demo", false, "generate realistic synthetic traffic continuously")
	idle := flag.Duration("session-idle", 0, "default session idle timeout (default 1h; the session_idle configuration key overrides it)")
	max := flag.Duration("session-max", 0, "default session maximum lifetime (default 24h; session_max overrides it)")
	chURL := flag.String("clickhouse", "", "keep the records in ClickHouse: clickhouse://[user[:password]@]host:port/database (native protocol); default: DuckDB in <data>")
	chCluster := flag.String("clickhouse-cluster", "", "with -clickhouse: the cluster (remote_servers) whose shards hold the records, through a Distributed table")
	level := zap.LevelFlag("log-level", zapcore.InfoLevel, "log level: debug, info, warn, error")
	postgres := flag.String("postgres", "", "keep users, sessions, keys, dashboards, widgets and configuration in this PostgreSQL database, shared by several nodes: postgres://user[:password]@host:port/db?sslmode=... (default: SQLite files in -data)")
	drain := flag.Duration("drain", 0, "on SIGINT/SIGTERM, answer not ready on "+app.ReadyPath+" this long before shutting down, so that a load balancer stops sending new calls first")
	flag.Parse()
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", flag.Args())
	}
	if (*cert == "") != (*key == "") {
		return errors.New("-cert and -key go together")
	}
	if *postgres != "" {
		if _, err := app.ParsePostgresURL(*postgres); err != nil {
			return err
		}
	}
	logCfg := zap.NewProductionConfig()
	logCfg.Level = zap.NewAtomicLevelAt(*level)
	logCfg.Sampling = nil
	log, err := logCfg.Build()
	if err != nil {
		return err
	}
	defer func() { _ = log.Sync() }()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	a, err := app.Open(ctx, app.Config{
		DataDir: *data, Demo: *demoFlag, SessionIdle: *idle, SessionMax: *max, Logger: log,
		ClickHouse: *chURL, ClickHouseCluster: *chCluster, Postgres: *postgres,
	})
	if err != nil {
		return err
	}
	srv := &fnapi.Server{
		Addr: *addr, Handler: a.Handler(), CertFile: *cert, KeyFile: *key,
		DataDir: *data, Hosts: names, Logger: log,
	}
	serveCtx, stopServing := context.WithCancel(context.Background())
	defer stopServing()
	go func() {
		select {
		case <-ctx.Done(): // SIGINT or SIGTERM
		case <-serveCtx.Done():
			return
		}
		a.Drain()
		time.Sleep(*drain)
		stopServing()
	}()
	serveErr := srv.ListenAndServe(serveCtx) // in-flight calls finish
	closeCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	closeErr := a.Close(closeCtx)
	if serveErr != nil {
		return serveErr
	}
	if closeErr == nil {
		log.Info("stopped")
	}
	return closeErr
}
