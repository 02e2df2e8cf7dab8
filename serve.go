package fnapi

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"go.uber.org/zap"
)

// Server serves an [http.Handler] over HTTPS only, with the site's certificate or a self-signed
// one it generates, and stops gracefully when its context is done:
//
//	srv := &fnapi.Server{Addr: "127.0.0.1:8443", Handler: mux, DataDir: "./data", Logger: log}
//	err := srv.ListenAndServe(ctx) // until ctx is done (e.g. SIGINT with signal.NotifyContext)
//
// A plain-HTTP request to its port gets no API answer, only the standard library's 400 "Client
// sent an HTTP request to an HTTPS server". TLS 1.2 is the minimum. Handler is required, and
// DataDir unless CertFile and KeyFile are given; every other field's zero value is usable and
// its comment names its default.
type Server struct {
	// Addr is the TCP address to listen on. Default: "127.0.0.1:8443".
	Addr string
	// Handler answers the requests. Required.
	Handler http.Handler
	// CertFile and KeyFile name the PEM files of the site's certificate (with its chain) and
	// key. When empty, a self-signed certificate is used (see SelfSignedCertificate).
	CertFile, KeyFile string
	// DataDir is where the self-signed certificate is kept, in DataDir/tls. Required without
	// CertFile.
	DataDir string
	// Hosts are names or addresses the self-signed certificate covers besides localhost,
	// 127.0.0.1, ::1 and the machine's host name.
	Hosts []string
	// Logger receives the certificate's fingerprint, the URL served, and connection errors at
	// debug level. Default: no logging.
	Logger *zap.Logger
	// ReadHeaderTimeout bounds the reading of a request's headers, against slow clients.
	// Default: 10 s. The fnapi handler bounds the reading of each body itself (30 s plus its
	// length at 64 KiB/s by default: fnapi.WithBodyTimeout); a server
	// of the standard library's ReadTimeout would cut long streams instead.
	ReadHeaderTimeout time.Duration
	// IdleTimeout closes keep-alive connections idle this long. Default: 2 min.
	IdleTimeout time.Duration
	// ShutdownTimeout is how long requests in progress may finish once the context is done;
	// then connections are closed. Default: 10 s.
	ShutdownTimeout time.Duration
}

// ListenAndServe listens on s.Addr and serves HTTPS until ctx is done, then shuts down
// gracefully. It returns nil after a shutdown, and the error otherwise.
func (s *Server) ListenAndServe(ctx context.Context) error {
	addr := s.Addr
	if addr == "" {
		addr = "127.0.0.1:8443"
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("fnapi: %w", err)
	}
	return s.Serve(ctx, ln)
}

// Serve serves HTTPS on ln until ctx is done, like ListenAndServe. It closes ln.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	log := s.Logger
	if log == nil {
		log = zap.NewNop()
	}
	if s.Handler == nil {
		ln.Close()
		return errors.New("fnapi: Server without a Handler")
	}
	cert, err := s.certificate(log)
	if err != nil {
		ln.Close()
		return err
	}
	// Requests in progress see base end once the shutdown is over. WebSocket connections do
	// not derive from it: the fnapi handler hooks their shutdown into srv's
	// (Handler.Shutdown).
	base, cancelBase := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelBase()
	srv := &http.Server{
		Handler: s.Handler,
		TLSConfig: &tls.Config{
			MinVersion:   tls.VersionTLS12,
			Certificates: []tls.Certificate{cert},
		},
		ReadHeaderTimeout: orDefault(s.ReadHeaderTimeout, 10*time.Second),
		IdleTimeout:       orDefault(s.IdleTimeout, 2*time.Minute),
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return base },
	}
	if l, err := zap.NewStdLogAt(log.Named("http"), zap.DebugLevel); err == nil {
		srv.ErrorLog = l // TLS handshake errors from scanners and plain-HTTP clients: debug only
	}
	done := make(chan error, 1)
	go func() { done <- srv.ServeTLS(ln, "", "") }()
	log.Info("fnapi: serving HTTPS", zap.String("url", "https://"+ln.Addr().String()+"/"))
	select {
	case err := <-done:
		return fmt.Errorf("fnapi: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), orDefault(s.ShutdownTimeout, 10*time.Second))
	defer cancel()
	err = srv.Shutdown(sctx)
	cancelBase()
	if err != nil {
		srv.Close()
		log.Warn("fnapi: requests still running at the end of the shutdown timeout were cut", zap.Error(err))
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("fnapi: %w", err)
	}
	log.Info("fnapi: stopped serving")
	return nil
}

// certificate loads the site's certificate, or the self-signed one.
func (s *Server) certificate(log *zap.Logger) (tls.Certificate, error) {
	switch {
	case s.CertFile != "" || s.KeyFile != "":
		if s.CertFile == "" || s.KeyFile == "" {
			return tls.Certificate{}, errors.New("fnapi: CertFile and KeyFile go together")
		}
		cert, err := tls.LoadX509KeyPair(s.CertFile, s.KeyFile)
		if err != nil {
			return tls.Certificate{}, fmt.Errorf("fnapi: %w", err)
		}
		log.Info("fnapi: TLS certificate", zap.String("file", s.CertFile), zap.String("sha256", Fingerprint(cert)))
		return cert, nil
	case s.DataDir == "":
		return tls.Certificate{}, errors.New("fnapi: Server needs CertFile and KeyFile, or DataDir for a self-signed certificate")
	}
	return SelfSignedCertificate(s.DataDir, s.Hosts, log)
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
