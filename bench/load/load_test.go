package load_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/fnapi/fnapi/bench/load"
	"github.com/fnapi/fnapi/bench/targets"
)

// serve serves s over TLS on loopback for the test and returns its address and a client that
// trusts it.
func serve(t *testing.T, s targets.Server) (string, *http.Client) {
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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- targets.Serve(ctx, s, ln, cert) }()
	t.Cleanup(func() {
		client.CloseIdleConnections()
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return ln.Addr().String(), client
}

func target(t *testing.T, name string) targets.Target {
	for _, tg := range targets.All() {
		if tg.Name == name {
			return tg
		}
	}
	t.Fatalf("no target %q", name)
	return targets.Target{}
}

// TestRunWS keeps a few calls in flight on a WebSocket for a moment: every answer is a result.
func TestRunWS(t *testing.T) {
	for _, name := range []string{"fnapi WS", "geth WS"} {
		t.Run(name, func(t *testing.T) {
			tg := target(t, name)
			addr, client := serve(t, tg.Server)
			r, err := load.RunWS(context.Background(), load.WSConfig{URL: "wss://" + addr + tg.Path,
				HTTPClient: client, InFlight: 4, Duration: 200 * time.Millisecond, AppendMessage: tg.AppendMessage})
			if err != nil {
				t.Fatal(err)
			}
			if r.Calls == 0 || r.Errors != 0 || r.P50 <= 0 || r.P99 < r.P50 {
				t.Errorf("RunWS = %+v", r)
			}
		})
	}
}

// TestRunWrk runs wrk for a second against a POST target. Without wrk it skips locally and
// fails under CI=true, where .ci/install-extras installs Debian's wrk.
func TestRunWrk(t *testing.T) {
	if _, err := exec.LookPath("wrk"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("wrk is not installed (Debian package wrk, installed by .ci/install-extras)")
		}
		t.Skip("wrk is not installed (Debian package wrk)")
	}
	tg := target(t, "net/http POST")
	addr, _ := serve(t, tg.Server)
	r, err := load.RunWrk(context.Background(), load.WrkConfig{URL: "https://" + addr + tg.Path,
		Threads: 1, Connections: 2, Duration: time.Second, Body: tg.Body, ContentType: tg.ContentType})
	if err != nil {
		t.Fatal(err)
	}
	if r.Calls == 0 || r.Errors != 0 || r.Elapsed <= 0 {
		t.Errorf("RunWrk = %+v", r)
	}
}
