package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestEdge runs the service as an operator would, with -metrics: HTTPS answers carry HSTS; the
// HTTPS port serves no /metrics (they list the flow exporters' addresses) and the -metrics
// address does.
func TestEdge(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the service")
	}
	p := startService(t, "-addr", "127.0.0.1:0", "-data", t.TempDir(), "-metrics", "127.0.0.1:0")
	get := func(hc *http.Client, url string) (*http.Response, string) {
		t.Helper()
		res, err := hc.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}

	t.Run("HSTS", func(t *testing.T) {
		for _, path := range []string{"/api/echo", "/", "/readyz", "/api/no-such-function"} {
			res, _ := get(insecure(), p.url+path)
			if got := res.Header.Get("Strict-Transport-Security"); got != "max-age=31536000" {
				t.Errorf("%s: Strict-Transport-Security %q", path, got)
			}
		}
	})
	t.Run("metrics", func(t *testing.T) {
		if res, body := get(insecure(), p.url+"/metrics"); res.StatusCode != 404 || strings.Contains(body, "fnapi_") {
			t.Errorf("the HTTPS port's /metrics: %d %.200q", res.StatusCode, body)
		}
		if p.metrics == "" {
			t.Fatalf("no 'serving metrics' line:\n%s", p.log)
		}
		res, body := get(http.DefaultClient, p.metrics)
		if res.StatusCode != 200 || !strings.Contains(body, "fnapi_websocket_connections") {
			t.Errorf("-metrics: %d %.200q", res.StatusCode, body)
		}
		if res, _ := get(http.DefaultClient, strings.TrimSuffix(p.metrics, "/metrics")+"/api/echo"); res.StatusCode != 404 {
			t.Errorf("-metrics serves the API: %d", res.StatusCode)
		}
	})
}
