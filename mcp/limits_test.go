package mcp_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/mcp"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/transport"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// TestLimitsLogsMetrics checks that MCP calls count as calls: one log line and metrics each,
// the rate limit (tools/list's probes are not counted), and the body limit.
func TestLimitsLogsMetrics(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zap.InfoLevel)
	reg := registry.New()
	fnapi.MustRegisterBuiltins(reg)
	limit := transport.RateLimit{PerSecond: 0.001, Burst: 2}
	h, err := fnapi.New(reg, fnapi.WithLogger(zap.New(core)), fnapi.WithMetrics(),
		fnapi.WithInterceptors(limit.Interceptor()), fnapi.WithMCP(mcp.Options{MaxBytes: 4096}))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", h))
	s := &server{t: t, srv: httptest.NewTLSServer(mux)}
	t.Cleanup(s.srv.Close)
	_, do := s.session("")
	for range 3 { // probes of every function, three times: not calls
		if a := do(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); !strings.Contains(a.body, `"name":"echo"`) {
			t.Fatalf("tools/list: %s", a.body)
		}
	}
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"a":1}}}`
	for i := range 2 {
		if a := do(call); a.result()["isError"] == true {
			t.Fatalf("call %d: %s", i, a.body)
		}
	}
	if a := do(call); !strings.Contains(toolText(a.result()), `"error":"RATE-LIMITED"`) {
		t.Errorf("third call: %s", a.body)
	}
	lines := logs.FilterMessage("call").FilterField(zap.String("transport", "mcp")).FilterField(zap.String("function", "echo"))
	if n := lines.Len(); n != 3 {
		t.Errorf("%d log lines of MCP calls of echo, want 3: %v", n, logs.All())
	}
	rec := httptest.NewRecorder()
	h.Metrics().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if !strings.Contains(rec.Body.String(), `fnapi_calls_total{function="echo"} 3`) ||
		!strings.Contains(rec.Body.String(), `fnapi_errors_total{function="echo",code="RATE-LIMITED"} 1`) {
		t.Errorf("metrics:\n%s", rec.Body)
	}
	big := `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":"` + strings.Repeat("a", 5000) + `"}}`
	if a := do(big); a.status != 413 {
		t.Errorf("a body over the limit: %d %s", a.status, a.body)
	}
}
