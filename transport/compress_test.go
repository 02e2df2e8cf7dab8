package transport_test

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/transport"
)

// TestCompress: a large JSON answer goes gzipped to a client that accepts gzip, and is the same
// answer once decompressed; a small one, one to a client that does not accept gzip, and the
// answer of a function whose answers carry secrets (NoStore: BREACH) go as they are.
func TestCompress(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	reg.MustRegister("text", func(in struct {
		N int `json:"n"`
	}) string {
		return strings.Repeat("traffic ", in.N)
	}, registry.Requires(decl.Public))
	reg.MustRegister("secret-text", func(in struct {
		N int `json:"n"`
	}) string {
		return strings.Repeat("secret ", in.N)
	}, registry.Requires(decl.Public), registry.NoStore())
	h, err := transport.New(reg, transport.Config{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewTLSServer(h)
	t.Cleanup(srv.Close)
	tests := []struct {
		name, path, accept string
		gzipped            bool
	}{
		{"large, gzip accepted", "/text?n=1000", "gzip", true},
		{"large, among others", "/text?n=1000", "br;q=1.0, gzip;q=0.8", true},
		{"large, any encoding", "/text?n=1000", "*", true},
		{"large, gzip refused", "/text?n=1000", "gzip;q=0", false},
		{"large, no Accept-Encoding", "/text?n=1000", "", false},
		{"small", "/text?n=10", "gzip", false},
		{"large secret", "/secret-text?n=1000", "gzip", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", srv.URL+tt.path, nil)
			req.Header.Set("Accept-Encoding", tt.accept) // set: the client then leaves the body as sent
			res, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var body io.Reader = res.Body
			if gz := res.Header.Get("Content-Encoding") == "gzip"; gz != tt.gzipped {
				t.Fatalf("Content-Encoding %q, want gzip %v", res.Header.Get("Content-Encoding"), tt.gzipped)
			} else if gz {
				zr, err := gzip.NewReader(res.Body)
				if err != nil {
					t.Fatal(err)
				}
				body = zr
			}
			b, err := io.ReadAll(body)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(b), `{"type":"result","result":"`) || !strings.HasSuffix(string(b), ` "}`) {
				t.Errorf("answer %.60q...", b)
			}
			if strings.Contains(tt.path, "secret") == (res.Header.Get("Vary") == "Accept-Encoding") {
				t.Errorf("Vary %q", res.Header.Get("Vary"))
			}
		})
	}
}
