package testutil

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Served is a client in a child process that makes calls to a TLS server of this process, on
// one kept-alive connection, so that a benchmark's getrusage of this process counts the
// server's CPU a call (its TLS, net/http, the handler) and not the client's:
//
//	s := testutil.StartServed(b, "TestServedClient", srv) // srv from httptest.NewTLSServer
//	defer cpuPerOp(b)()
//	s.Calls(b, b.N, testutil.ServedCall{Method: "GET", Path: "/f", Status: 200})
//
// The test binary runs ServedClient in the test named: func TestServedClient(t *testing.T) {
// testutil.ServedClient(t) }.
type Served struct {
	stdin io.WriteCloser
	out   *bufio.Reader
}

// ServedCall is a call the client makes, and the status it must answer.
type ServedCall struct {
	Method, Path, Body string
	Header             http.Header
	Status             int
}

// StartServed starts the client process, running test of this binary, for srv; it stops when
// tb's test ends.
func StartServed(tb testing.TB, test string, srv *httptest.Server) *Served {
	tb.Helper()
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), "FNAPI_SERVED_URL="+srv.URL, "FNAPI_SERVED_CERT="+string(cert))
	stdin, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	return &Served{stdin: stdin, out: bufio.NewReader(out)}
}

// Calls has the client make c n times, one after the other, and waits for them.
func (s *Served) Calls(tb testing.TB, n int, c ServedCall) {
	tb.Helper()
	line, _ := json.Marshal(struct {
		N int
		ServedCall
	}{n, c})
	fmt.Fprintf(s.stdin, "%s\n", line)
	if got, err := s.out.ReadString('\n'); err != nil || got != "done\n" {
		tb.Fatalf("client process: %q, %v", got, err)
	}
}

// ServedClient is the client process's side of StartServed; without it (a test run), it skips.
func ServedClient(t *testing.T) {
	base := os.Getenv("FNAPI_SERVED_URL")
	if base == "" {
		t.Skip("the client process of a benchmark (testutil.StartServed)")
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM([]byte(os.Getenv("FNAPI_SERVED_CERT")))
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		var c struct {
			N int
			ServedCall
		}
		if err := json.Unmarshal(in.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		for range c.N {
			req, _ := http.NewRequest(c.Method, base+c.Path, strings.NewReader(c.Body))
			if c.Header != nil {
				req.Header = c.Header.Clone()
			}
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.Status {
				t.Fatalf("%s %s: %s, want %d", c.Method, c.Path, resp.Status, c.Status)
			}
		}
		fmt.Println("done")
	}
}
