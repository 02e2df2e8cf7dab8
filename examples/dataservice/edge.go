package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"
)

// hstsMaxAge is the Strict-Transport-Security max-age of the HTTPS answers: one year, the
// value browsers' preload lists ask for. A browser that saw it goes to https:// for this host
// for a year without trying http://, so that a network attacker cannot serve it a page of
// http://host (another origin, which the service refuses anyway). No includeSubDomains: the
// service does not own its domain's other hosts.
const hstsMaxAge = "max-age=31536000"

// publicHandler is what the HTTPS port serves: the app, every answer with HSTS, and without
// /metrics, which the -metrics listener serves instead (it lists the exporters' addresses).
func publicHandler(app http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS != nil {
			w.Header().Set("Strict-Transport-Security", hstsMaxAge)
		}
		if r.URL.Path == "/metrics" {
			http.Error(w, "metrics are served on the -metrics address only", http.StatusNotFound)
			return
		}
		app.ServeHTTP(w, r)
	})
}

// serveMetrics serves GET /metrics of app over plain HTTP on ln until ctx is done: the
// Prometheus format, without a token, as scrapers expect. Bind it to a loopback or management
// address: the metrics name the functions called and the flow exporters' addresses.
func serveMetrics(ctx context.Context, ln net.Listener, app http.Handler) error {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", app)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		MaxHeaderBytes: 16 << 10, WriteTimeout: 30 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
