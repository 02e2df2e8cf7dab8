// Command dataservice is the example data service built on fnapi: traffic records collected
// (the ingest function and a -demo generator), a query language over them, dashboards, widgets,
// users, API keys and configuration, served over HTTPS and WebSocket only.
//
//	dataservice [-addr 127.0.0.1:8443] [-data ./data] [-cert F -key F] [-host NAME] [-demo]
//	            [-session-idle 1h] [-session-max 24h] [-log-level info]
//	            [-netflow ADDR] [-sflow ADDR]
//	            [-clickhouse URL [-clickhouse-cluster NAME]]
//
// The standard OpenTelemetry environment variables turn tracing on (see tracing): for example
// OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318.
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
	netflow := flag.String("netflow", "", "UDP address to collect NetFlow v5, v9 and IPFIX on (e.g. :2055)")
	sflow := flag.String("sflow", "", "UDP address to collect sFlow v5 on (e.g. :6343)")
	chURL := flag.String("clickhouse", "", "keep the records in ClickHouse: clickhouse://[user[:password]@]host:port/database (native protocol); default: DuckDB in <data>")
	chCluster := flag.String("clickhouse-cluster", "", "with -clickhouse: the cluster (remote_servers) whose shards hold the records, through a Distributed table")
	level := zap.LevelFlag("log-level", zapcore.InfoLevel, "log level: debug, info, warn, error")
	flag.Parse()
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", flag.Args())
	}
	if (*cert == "") != (*key == "") {
		return errors.New("-cert and -key go together")
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
	cfg := app.Config{DataDir: *data, Demo: *demoFlag, SessionIdle: *idle, SessionMax: *max, Logger: log,
		ClickHouse: *chURL, ClickHouseCluster: *chCluster, NetFlow: *netflow, SFlow: *sflow}
	tp, err := tracing(ctx, os.Getenv)
	if err != nil {
		return err
	}
	if tp != nil {
		cfg.TracerProvider = tp
		log.Info("tracing: exporting spans over OTLP/HTTP")
		defer func() { // after the app has closed: its last spans are flushed
			flushCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := tp.Shutdown(flushCtx); err != nil {
				log.Warn("tracing: flushing spans", zap.Error(err))
			}
		}()
	}
	a, err := app.Open(ctx, cfg)
	if err != nil {
		return err
	}
	srv := &fnapi.Server{
		Addr: *addr, Handler: a.Handler(), CertFile: *cert, KeyFile: *key,
		DataDir: *data, Hosts: names, Logger: log,
	}
	serveErr := srv.ListenAndServe(ctx) // until SIGINT or SIGTERM; in-flight calls finish
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
