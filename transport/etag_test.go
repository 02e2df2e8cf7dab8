package transport_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/internal/apitest"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/stream"
	"github.com/fnapi/fnapi/transport"
)

// fetch makes a request with the headers hdr (name, value, ...) and returns the answer and
// its body, as it came (a client that sets Accept-Encoding reads the compressed bytes).
func fetch(t *testing.T, srv *httptest.Server, method, path, body string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Add(hdr[i], hdr[i+1])
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// etagServer serves a note that set-note changes, read-only functions of every other kind, and
// a function that changes things.
func etagServer(t *testing.T) *httptest.Server {
	t.Helper()
	var mu sync.Mutex
	note := "first"
	pub := registry.Requires(decl.Public)
	reg := registry.New()
	reg.MustRegister("note", func() string { mu.Lock(); defer mu.Unlock(); return note }, pub, registry.ReadOnly())
	reg.MustRegister("set-note", func(text string) string { mu.Lock(); defer mu.Unlock(); note = text; return note },
		registry.Args("text"), pub)
	reg.MustRegister("big", func() string { return strings.Repeat("large answer ", 200) }, pub, registry.ReadOnly())
	reg.MustRegister("secret", func() string { return "s3cret" }, pub, registry.ReadOnly(), registry.NoStore())
	reg.MustRegister("missing", func() (string, error) { return "", apierr.New(apierr.NotFound, "name", "x") }, pub, registry.ReadOnly())
	reg.MustRegister("count", func(ctx context.Context, s *stream.Sender[int]) error { return s.Send(1) }, pub, registry.ReadOnly())
	h, err := transport.New(reg, transport.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return apitest.Serve(t, h)
}

func TestConditionalRead(t *testing.T) {
	t.Parallel()
	srv := etagServer(t)
	res, body := fetch(t, srv, "GET", "/api/note", "")
	tag := res.Header.Get("ETag")
	if res.StatusCode != 200 || len(tag) != 24 || tag[0] != '"' || tag[23] != '"' {
		t.Fatalf("%d ETag %q: want 200 and a strong tag", res.StatusCode, tag)
	}
	if cc := res.Header.Get("Cache-Control"); cc != "no-cache" {
		t.Errorf("Cache-Control %q, want no-cache", cc)
	}
	for _, inm := range []string{tag, `"other", ` + tag, "W/" + tag, `"a","b",` + tag, "*"} {
		res, b := fetch(t, srv, "GET", "/api/note", "", "If-None-Match", inm)
		if res.StatusCode != http.StatusNotModified || b != "" {
			t.Fatalf("If-None-Match: %s answered %d %q, want 304 and no body", inm, res.StatusCode, b)
		}
		if res.Header.Get("ETag") != tag || res.Header.Get("Cache-Control") != "no-cache" || res.Header.Get("Vary") != "Accept-Encoding" {
			t.Errorf("304 headers %v: want the ETag, Cache-Control and Vary of the 200", res.Header)
		}
	}
	for _, inm := range []string{`"other"`, tag[:len(tag)-2] + `"`, strings.Trim(tag, `"`)} {
		if res, b := fetch(t, srv, "GET", "/api/note", "", "If-None-Match", inm); res.StatusCode != 200 || b != body {
			t.Errorf("If-None-Match: %s answered %d %q, want 200 and the note", inm, res.StatusCode, b)
		}
	}

	// A change makes a new tag: the old one answers 200 with it.
	if res, b := fetch(t, srv, "POST", "/api/set-note", `{"text":"second"}`, "Content-Type", "application/json"); res.StatusCode != 200 || res.Header.Get("ETag") != "" {
		t.Fatalf("set-note answered %d %s with ETag %q: functions that change things carry none", res.StatusCode, b, res.Header.Get("ETag"))
	}
	res, body = fetch(t, srv, "GET", "/api/note", "", "If-None-Match", tag)
	if res.StatusCode != 200 || !strings.Contains(body, "second") || res.Header.Get("ETag") == tag || res.Header.Get("ETag") == "" {
		t.Fatalf("after a change: %d %s ETag %q (old %q)", res.StatusCode, body, res.Header.Get("ETag"), tag)
	}
}

func TestConditionalReadCompressed(t *testing.T) {
	t.Parallel()
	srv := etagServer(t)
	plain, _ := fetch(t, srv, "GET", "/api/big", "", "Accept-Encoding", "identity")
	gz, _ := fetch(t, srv, "GET", "/api/big", "", "Accept-Encoding", "gzip")
	if gz.Header.Get("Content-Encoding") != "gzip" || plain.Header.Get("Content-Encoding") != "" {
		t.Fatalf("Content-Encoding %q and %q", gz.Header.Get("Content-Encoding"), plain.Header.Get("Content-Encoding"))
	}
	pt, gt := plain.Header.Get("ETag"), gz.Header.Get("ETag")
	if pt == "" || gt != strings.TrimSuffix(pt, `"`)+`-gzip"` {
		t.Fatalf("ETags %s (identity) and %s (gzip): the gzipped representation needs a tag of its own", pt, gt)
	}
	for _, r := range []*http.Response{plain, gz} {
		if r.Header.Get("Vary") != "Accept-Encoding" {
			t.Errorf("Vary %q", r.Header.Get("Vary"))
		}
	}
	if r, _ := fetch(t, srv, "GET", "/api/big", "", "Accept-Encoding", "gzip", "If-None-Match", pt); r.StatusCode != 200 {
		t.Errorf("the identity tag matched the gzipped answer: %d", r.StatusCode)
	}
	if r, _ := fetch(t, srv, "GET", "/api/big", "", "Accept-Encoding", "gzip", "If-None-Match", gt); r.StatusCode != 304 || r.Header.Get("ETag") != gt {
		t.Errorf("the gzip tag answered %d with ETag %q", r.StatusCode, r.Header.Get("ETag"))
	}
}

func TestConditionalReadOnlyThere(t *testing.T) {
	t.Parallel()
	srv := etagServer(t)
	for _, c := range []struct{ what, method, path string }{
		{"POST of a read-only function", "POST", "/api/note"},
		{"a function that changes things", "GET", "/api/set-note?text=x"},
		{"a NoStore function", "GET", "/api/secret"},
		{"an error", "GET", "/api/missing"},
		{"a streaming function", "GET", "/api/count"},
		{"a stream", "GET", "/api/stream/count"},
	} {
		res, b := fetch(t, srv, c.method, c.path, "", "If-None-Match", "*")
		if res.Header.Get("ETag") != "" || res.StatusCode == http.StatusNotModified {
			t.Errorf("%s: %d ETag %q %s", c.what, res.StatusCode, res.Header.Get("ETag"), b)
		}
	}
}
