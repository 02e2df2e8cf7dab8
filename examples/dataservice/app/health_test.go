package app_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/console"
)

func getHealth(t *testing.T, s *service, path string) (int, string) {
	t.Helper()
	res, err := s.srv.Client().Get(s.srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestHealth checks the liveness and readiness answers, without a token, and readiness turning
// false when the node drains before a shutdown.
func TestHealth(t *testing.T) {
	t.Parallel()
	s := start(t)
	for _, path := range []string{console.LivePath, console.ReadyPath} {
		if status, body := getHealth(t, s, path); status != http.StatusOK || body != "ok\n" {
			t.Fatalf("%s: %d %q", path, status, body)
		}
	}
	s.app.Drain()
	if status, body := getHealth(t, s, console.ReadyPath); status != http.StatusServiceUnavailable || !strings.Contains(body, "shutting down") {
		t.Fatalf("readiness of a draining node: %d %q", status, body)
	}
	if status, _ := getHealth(t, s, console.LivePath); status != http.StatusOK {
		t.Fatalf("liveness of a draining node: %d", status)
	}
}
