package webui_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/webui"
)

func TestHandler(t *testing.T) {
	t.Parallel()
	h := webui.Handler()
	tests := []struct {
		name, method, path string
		status             int
		contentType        string
		body               string
	}{
		{"page", "GET", "/", 200, "text/html; charset=utf-8", `<script type="module" src="app.js">`},
		{"script", "GET", "/app.js", 200, "text/javascript; charset=utf-8", "import {API"},
		{"api client", "GET", "/api.js", 200, "text/javascript; charset=utf-8", "export class API"},
		{"charts", "GET", "/charts.js", 200, "text/javascript; charset=utf-8", "export function render"},
		{"helpers", "GET", "/ui.js", 200, "text/javascript; charset=utf-8", "export async function busy"},
		{"account", "GET", "/account.js", 200, "text/javascript; charset=utf-8", "export class Account"},
		{"admin", "GET", "/admin.js", 200, "text/javascript; charset=utf-8", "export class Admin"},
		{"query language", "GET", "/query.js", 200, "text/javascript; charset=utf-8", "export function periodEdits"},
		{"period", "GET", "/period.js", 200, "text/javascript; charset=utf-8", "export class Picker"},
		{"editor", "GET", "/editor.js", 200, "text/javascript; charset=utf-8", "export class Editor"},
		{"explore", "GET", "/explore.js", 200, "text/javascript; charset=utf-8", "export class Explore"},
		{"api reference", "GET", "/apiref.js", 200, "text/javascript; charset=utf-8", "export class APIReference"},
		{"api form", "GET", "/apiform.js", 200, "text/javascript; charset=utf-8", "export function readForm"},
		{"style", "GET", "/style.css", 200, "text/css; charset=utf-8", ".widget"},
		{"icon", "GET", "/favicon.svg", 200, "image/svg+xml", "<svg"},
		{"head", "HEAD", "/", 200, "text/html; charset=utf-8", ""},
		{"index by name", "GET", "/index.html", 404, "", ""},
		{"unknown", "GET", "/nothing.js", 404, "", ""},
		{"directory", "GET", "/static/app.js", 404, "", ""},
		{"post", "POST", "/", 405, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(tt.method, tt.path, nil))
			res := w.Result()
			if res.StatusCode != tt.status {
				t.Fatalf("status %d, want %d", res.StatusCode, tt.status)
			}
			checkSecurityHeaders(t, res.Header)
			if tt.contentType != "" {
				if got := res.Header.Get("Content-Type"); got != tt.contentType {
					t.Errorf("Content-Type %q, want %q", got, tt.contentType)
				}
			}
			body, _ := io.ReadAll(res.Body)
			if !strings.Contains(string(body), tt.body) {
				t.Errorf("body does not contain %q", tt.body)
			}
			if tt.method == "HEAD" && len(body) != 0 {
				t.Errorf("HEAD answered a body of %d bytes", len(body))
			}
		})
	}
}

// TestCompressed checks that the page's files go compressed to a browser that accepts gzip,
// the same once decompressed, and that its scripts stay under 250 KB (and compressed under 80).
func TestCompressed(t *testing.T) {
	t.Parallel()
	h := webui.Handler()
	get := func(path, accept string) *http.Response {
		r := httptest.NewRequest("GET", path, nil)
		if accept != "" {
			r.Header.Set("Accept-Encoding", accept)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Result()
	}
	scripts, err := filepath.Glob("static/*.js")
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	var plain, packed int
	for _, name := range scripts {
		path := "/" + filepath.Base(name)
		raw, _ := io.ReadAll(get(path, "").Body)
		res := get(path, "br, gzip, deflate")
		if res.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(res.Header.Get("Vary"), "Accept-Encoding") {
			t.Errorf("%s: Content-Encoding %q, Vary %q", path, res.Header.Get("Content-Encoding"), res.Header.Get("Vary"))
			continue
		}
		zr, err := gzip.NewReader(res.Body)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		body, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(body, raw) {
			t.Errorf("%s: decompressed differs from the file (%v)", path, err)
		}
		if res.Header.Get("ETag") == get(path, "").Header.Get("ETag") {
			t.Errorf("%s: the compressed and plain files share an ETag", path)
		}
		plain += len(raw)
		n, _ := io.Copy(io.Discard, get(path, "gzip").Body)
		packed += int(n)
	}
	t.Logf("scripts: %d bytes, %d compressed", plain, packed)
	if plain > 250<<10 || packed > 80<<10 {
		t.Errorf("the scripts weigh %d bytes (%d compressed): over the 250 KB (80 KB) budget", plain, packed)
	}
	if got := get("/app.js", "gzip;q=0").Header.Get("Content-Encoding"); got != "" {
		t.Errorf("gzip;q=0 answered Content-Encoding %q", got)
	}
}

// TestEveryModuleLoads checks that the page names every script it serves, so that none is
// fetched late (a module preload) or forgotten.
func TestEveryModuleLoads(t *testing.T) {
	t.Parallel()
	h := webui.Handler()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	page := w.Body.String()
	scripts, err := filepath.Glob("static/*.js")
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, s := range scripts {
		name := filepath.Base(s)
		if !strings.Contains(page, `href="`+name+`"`) && !strings.Contains(page, `src="`+name+`"`) {
			t.Errorf("the page does not load %s", name)
		}
	}
}

// checkSecurityHeaders checks the headers every response carries.
func checkSecurityHeaders(t *testing.T, h http.Header) {
	t.Helper()
	csp := h.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'self'", "script-src 'self'", "frame-ancestors 'none'", "object-src 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("Content-Security-Policy %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe") || strings.Contains(csp, "*") {
		t.Errorf("Content-Security-Policy %q allows more than the page's origin", csp)
	}
	for name, want := range map[string]string{
		"X-Content-Type-Options": "nosniff",
		"Referrer-Policy":        "no-referrer",
		"X-Frame-Options":        "DENY",
	} {
		if got := h.Get(name); got != want {
			t.Errorf("%s %q, want %q", name, got, want)
		}
	}
}

func TestHandlerRevalidates(t *testing.T) {
	t.Parallel()
	h := webui.Handler()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/app.js", nil))
	etag := w.Header().Get("ETag")
	if etag == "" || w.Header().Get("Cache-Control") != "no-cache" {
		t.Fatalf("ETag %q, Cache-Control %q: want an ETag and no-cache", etag, w.Header().Get("Cache-Control"))
	}
	tests := []struct {
		name, ifNoneMatch string
		status            int
	}{
		{"same version", etag, http.StatusNotModified},
		{"other version", `"0123"`, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/app.js", nil)
			r.Header.Set("If-None-Match", tt.ifNoneMatch)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.status {
				t.Errorf("status %d, want %d", w.Code, tt.status)
			}
		})
	}
}
