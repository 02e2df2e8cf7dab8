package transport_test

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/transport"
)

// BenchmarkServedGET is BenchmarkReadOnlyGET as a client meets it: the same read-only GET (1
// item, 112 B) answered by a TLS server (net/http, HTTP/1.1, keep-alive) to a client in a child
// process, so that cpu-ns/op is the server's CPU a call (its TLS, its reads and writes of
// request and headers, the handler), not the client's. Untagged, tagged (ETag and
// Cache-Control added) and not-modified (If-None-Match holds the tag: 304).
func BenchmarkServedGET(b *testing.B) {
	list := []listItem{{0, "Dashboard number 0", "alice", []int64{1, 2, 3, 4}, 0}}
	reg := registry.New()
	reg.MustRegister("tagged", func() []listItem { return list }, registry.Requires(decl.Public), registry.ReadOnly())
	reg.MustRegister("untagged", func() []listItem { return list }, registry.Requires(decl.Public))
	h, err := transport.New(reg, transport.Config{})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.StartTLS()
	defer srv.Close()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/tagged", nil))
	tag := w.Header().Get("ETag")

	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	cmd := exec.Command(os.Args[0], "-test.run=^TestServedClient$")
	cmd.Env = append(os.Environ(), "FNAPI_SERVED_URL="+srv.URL, "FNAPI_SERVED_CERT="+string(cert))
	stdin, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { stdin.Close(); _ = cmd.Wait() }()
	answers := bufio.NewReader(out)
	// calls has the child make n calls of path, and waits for them.
	calls := func(b *testing.B, n int, path, inm string) {
		fmt.Fprintf(stdin, "%d %s %s\n", n, path, inm)
		if line, err := answers.ReadString('\n'); err != nil || line != "done\n" {
			b.Fatalf("client process: %q, %v", line, err)
		}
	}
	calls(b, 100, "/untagged", "-") // the connection and its handshake
	run := func(b *testing.B, path, inm string) {
		defer cpuPerOp(b)()
		calls(b, b.N, path, inm) // the child makes all b.N calls
	}
	b.Run("untagged", func(b *testing.B) { run(b, "/untagged", "-") })
	b.Run("tagged", func(b *testing.B) { run(b, "/tagged", "-") })
	b.Run("not-modified", func(b *testing.B) { run(b, "/tagged", tag) })
}

// TestServedClient is the client process of BenchmarkServedGET; it does nothing otherwise. Each
// line of its input, "n path if-none-match" ("-" for none), has it make n GETs of path on one
// kept-alive connection, check their status, and answer "done".
func TestServedClient(t *testing.T) {
	base := os.Getenv("FNAPI_SERVED_URL")
	if base == "" {
		t.Skip("the client side of BenchmarkServedGET")
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM([]byte(os.Getenv("FNAPI_SERVED_CERT")))
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		f := strings.Fields(in.Text())
		n, _ := strconv.Atoi(f[0])
		req, _ := http.NewRequest("GET", base+f[1], nil)
		want := http.StatusOK
		if f[2] != "-" {
			req.Header.Set("If-None-Match", f[2])
			want = http.StatusNotModified
		}
		for range n {
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != want {
				t.Fatalf("%s: %s, want %d", f[1], resp.Status, want)
			}
		}
		fmt.Println("done")
	}
}
