package main

import (
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEdge runs the service as an operator would, on a data directory an earlier version left
// open to others (0755), with -metrics: HTTPS answers carry HSTS; the HTTPS port serves no
// /metrics (they list the flow exporters' addresses) and the -metrics address does; and the
// data directory and every file in it are private to the service's user.
func TestEdge(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the service")
	}
	data := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(data, 0o755); err != nil { // whatever the test's umask
		t.Fatal(err)
	}
	p := startService(t, "-addr", "127.0.0.1:0", "-data", data, "-metrics", "127.0.0.1:0")
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
	t.Run("data private", func(t *testing.T) {
		seen := map[string]bool{}
		err := filepath.WalkDir(data, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			seen[d.Name()] = true
			if d.Name() == "cert.pem" {
				return nil // public: every client receives it (and the directory is private)
			}
			if perm := info.Mode().Perm(); perm&0o077 != 0 {
				t.Errorf("%s: mode %v, open to others", path, perm)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"state.db", "records.duckdb", "admin-password"} {
			if !seen[name] {
				t.Errorf("no %s in the data directory: %v", name, seen)
			}
		}
	})
}
