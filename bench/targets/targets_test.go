package targets_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/fnapi/fnapi/bench/targets"
)

// startServers serves every server over TLS on loopback and returns their addresses and a
// client that trusts them.
func startServers(t *testing.T) (map[targets.Server]string, *http.Client) {
	t.Helper()
	certPEM, keyPEM, err := targets.SelfSigned()
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	t.Cleanup(client.CloseIdleConnections)

	addrs := map[targets.Server]string{}
	for _, s := range targets.Servers() {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- targets.Serve(ctx, s, ln, cert) }()
		t.Cleanup(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("%s: %v", s, err)
			}
		})
		addrs[s] = ln.Addr().String()
	}
	return addrs, client
}

// TestTargetsEcho makes sure every target answers the echo call correctly, so the harness
// compares servers doing the same work.
func TestTargetsEcho(t *testing.T) {
	addrs, client := startServers(t)
	for _, tg := range targets.All() {
		t.Run(tg.Name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := tg.Verify(ctx, client, addrs[tg.Server]); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	fnapiGET := targets.All()[0]
	tests := []struct {
		name   string
		answer string
		ok     bool
	}{
		{"result", `{"type":"result","result":{"a":1,"b":"x"}}`, true},
		{"with id", `{"type":"result","result":{"b":"x","a":1},"id":"3"}`, true},
		{"error", `{"type":"error","error":"UNKNOWN-FUNCTION"}`, false},
		{"wrong value", `{"type":"result","result":{"a":2,"b":"x"}}`, false},
		{"float", `{"type":"result","result":{"a":1.5,"b":"x"}}`, false},
		{"extra argument", `{"type":"result","result":{"a":1,"b":"x","c":0}}`, false},
		{"missing argument", `{"type":"result","result":{"a":1}}`, false},
		{"not JSON", `<html>`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := fnapiGET.Check([]byte(tt.answer))
			if (err == nil) != tt.ok {
				t.Errorf("Check(%s) = %v, want ok=%v", tt.answer, err, tt.ok)
			}
		})
	}
}
