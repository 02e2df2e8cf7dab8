package fnapi_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/internal/testutil"
	"github.com/fnapi/fnapi/registry"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// serve runs a Server on a free loopback port and returns its address, its logs, and a
// function that stops it and returns Serve's error.
func serve(t *testing.T, srv *fnapi.Server) (string, *observer.ObservedLogs, func() error) {
	t.Helper()
	core, logs := observer.New(zapcore.DebugLevel)
	srv.Logger = zap.New(core)
	if srv.Handler == nil {
		reg := registry.New()
		fnapi.MustRegisterBuiltins(reg)
		api, err := fnapi.New(reg)
		if err != nil {
			t.Fatal(err)
		}
		mux := http.NewServeMux()
		mux.Handle("/api/", http.StripPrefix("/api", api))
		srv.Handler = mux
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	var once sync.Once
	var serveErr error
	stop := func() error {
		once.Do(func() { cancel(); serveErr = <-done })
		return serveErr
	}
	t.Cleanup(func() { _ = stop() })
	// Serve logs the URL once its certificate is ready.
	testutil.Eventually(t, "Serve to log that it is serving", func() bool {
		return logs.FilterMessage("fnapi: serving HTTPS").Len() > 0
	})
	return ln.Addr().String(), logs, stop
}

// trusting returns a client that trusts only the PEM certificate in file.
func trusting(t *testing.T, file, serverName string) *http.Client {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		t.Fatal("no certificate in", file)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: serverName}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

func TestServeSelfSigned(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	addr, logs, stop := serve(t, &fnapi.Server{DataDir: dir, Hosts: []string{"api.example.test"}})
	certFile := filepath.Join(dir, "tls", "cert.pem")
	host, _ := os.Hostname()
	for _, name := range []string{"", "localhost", "api.example.test", host} {
		t.Run("verified as "+name, func(t *testing.T) {
			res, err := trusting(t, certFile, name).Get("https://" + addr + "/api/echo?a=1")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if string(b) != `{"type":"result","result":{"a":1}}` {
				t.Fatalf("answer %s", b)
			}
		})
	}
	t.Run("unknown name refused", func(t *testing.T) {
		if _, err := trusting(t, certFile, "other.example.test").Get("https://" + addr + "/api/echo"); err == nil {
			t.Fatal("a name the certificate lacks was accepted")
		}
	})
	t.Run("TLS 1.1 refused", func(t *testing.T) {
		c, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true, MaxVersion: tls.VersionTLS11})
		if err == nil {
			c.Close()
			t.Fatal("TLS 1.1 handshake succeeded")
		}
	})
	t.Run("plain HTTP gets no API answer", func(t *testing.T) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_, _ = io.WriteString(c, "GET /api/echo?a=1 HTTP/1.1\r\nHost: localhost\r\n\r\n")
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return // closed without an answer: fine
		}
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode == 200 || strings.Contains(string(b), `"type"`) {
			t.Fatalf("plain HTTP answered %d %s", res.StatusCode, b)
		}
	})
	t.Run("fingerprint logged", func(t *testing.T) {
		b, _ := os.ReadFile(certFile)
		blk, _ := pem.Decode(b)
		fp := fnapi.Fingerprint(tls.Certificate{Certificate: [][]byte{blk.Bytes}})
		if len(fp) != 95 || logs.FilterField(zap.String("sha256", fp)).Len() == 0 {
			t.Fatalf("fingerprint %s not in the log:\n%v", fp, logs.All())
		}
	})
	if err := stop(); err != nil {
		t.Fatalf("Serve returned %v after the context was done", err)
	}
	if logs.FilterField(zap.String("url", "https://"+addr+"/")).Len() == 0 {
		t.Errorf("the URL is not in the log:\n%v", logs.All())
	}
}

func TestSelfSignedCertificateReuse(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c1, err := fnapi.SelfSignedCertificate(dir, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := fnapi.SelfSignedCertificate(dir, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fnapi.Fingerprint(c1) != fnapi.Fingerprint(c2) {
		t.Fatal("the certificate was not reused")
	}
	c3, err := fnapi.SelfSignedCertificate(dir, []string{"new.example.test", "10.1.2.3"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fnapi.Fingerprint(c3) == fnapi.Fingerprint(c1) {
		t.Fatal("a certificate lacking a requested name was reused")
	}
	leaf, _ := x509.ParseCertificate(c3.Certificate[0])
	for _, n := range []string{"localhost", "127.0.0.1", "::1", "new.example.test", "10.1.2.3"} {
		if err := leaf.VerifyHostname(n); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	if leaf.PublicKeyAlgorithm != x509.ECDSA {
		t.Errorf("key algorithm %v", leaf.PublicKeyAlgorithm)
	}
	st, err := os.Stat(filepath.Join(dir, "tls", "key.pem"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("key.pem: %v %v", st, err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "tls"))
	if len(entries) != 2 {
		t.Errorf("tls directory holds %v", entries)
	}
}

func TestServeSiteCertificate(t *testing.T) {
	t.Parallel()
	site := t.TempDir()
	if _, err := fnapi.SelfSignedCertificate(site, nil, nil); err != nil { // stands for a site certificate
		t.Fatal(err)
	}
	cert, key := filepath.Join(site, "tls", "cert.pem"), filepath.Join(site, "tls", "key.pem")
	addr, _, _ := serve(t, &fnapi.Server{CertFile: cert, KeyFile: key})
	res, err := trusting(t, cert, "localhost").Get("https://" + addr + "/api/get-api-version")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("status %d", res.StatusCode)
	}
}

func TestServeRefusesBadConfig(t *testing.T) {
	t.Parallel()
	h := http.NotFoundHandler()
	tests := []struct {
		name string
		srv  fnapi.Server
	}{
		{"no handler", fnapi.Server{DataDir: t.TempDir()}},
		{"no certificate and no data directory", fnapi.Server{Handler: h}},
		{"certificate without key", fnapi.Server{Handler: h, CertFile: "cert.pem"}},
		{"missing files", fnapi.Server{Handler: h, CertFile: "nope.pem", KeyFile: "nope.pem"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.srv.Serve(t.Context(), ln); err == nil {
				t.Fatal("Serve accepted")
			}
			if _, err := ln.Accept(); !errors.Is(err, net.ErrClosed) {
				t.Errorf("listener left open: %v", err)
			}
		})
	}
}

func TestServeGracefulShutdown(t *testing.T) {
	t.Parallel()
	started, release := make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
		_, _ = io.WriteString(w, "finished")
	})
	dir := t.TempDir()
	addr, _, stop := serve(t, &fnapi.Server{Handler: h, DataDir: dir})
	client := trusting(t, filepath.Join(dir, "tls", "cert.pem"), "localhost")
	got := make(chan string, 1)
	go func() {
		res, err := client.Get("https://" + addr + "/slow")
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		got <- string(b)
	}()
	<-started
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	close(release)
	if s := <-got; s != "finished" {
		t.Fatalf("the request in progress got %q", s)
	}
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	if _, err := net.Dial("tcp", addr); err == nil {
		t.Fatal("still listening after shutdown")
	}
}
