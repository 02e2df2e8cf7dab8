package targets

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"time"
)

// Serve serves s over TLS on ln until ctx ends. Every server speaks HTTP/1.1 only (no HTTP/2
// through ALPN), as wrk does, so that all targets are measured on the same protocol.
func Serve(ctx context.Context, s Server, ln net.Listener, cert tls.Certificate) error {
	h, err := Handler(s)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		TLSConfig: &tls.Config{
			Certificates: []tls.Certificate{cert},
			NextProtos:   []string{"http/1.1"},
			MinVersion:   tls.VersionTLS12,
		},
		BaseContext: func(net.Listener) context.Context { return ctx },
		// wrk ends a run by dropping its connections, some mid-handshake: not worth a line.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-ctx.Done():
		case <-stop:
		}
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		_ = srv.Close()
	}()
	err = srv.Serve(tls.NewListener(ln, srv.TLSConfig))
	close(stop)
	<-done
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return fmt.Errorf("targets: %s: %w", s, err)
}
