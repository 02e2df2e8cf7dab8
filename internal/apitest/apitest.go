// Package apitest serves an fnapi handler in tests as a service mounts it: at /api/, over real
// TLS (httptest's certificate, which the server's Client trusts).
package apitest

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// Serve serves h at /api/ over TLS until the test ends, and returns the server: its URL plus
// "/api" is the API's base, and its Client trusts its certificate.
func Serve(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", h))
	srv := httptest.NewTLSServer(mux)
	t.Cleanup(srv.Close)
	return srv
}
