package mcp_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/jsonrpc"
	"github.com/fnapi/fnapi/mcp"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/transport"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// TestLimitsLogsMetrics checks that MCP calls count as calls: one log line and metrics each,
// the rate limit (a tools/list counts once, not once per tool it probes), and the body limit.
func TestLimitsLogsMetrics(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zap.InfoLevel)
	reg := registry.New()
	fnapi.MustRegisterBuiltins(reg)
	limit := transport.RateLimit{PerSecond: 0.001, Burst: 5}
	h, err := fnapi.New(reg, fnapi.WithLogger(zap.New(core)), fnapi.WithMetrics(),
		fnapi.WithInterceptors(limit.Interceptor()), fnapi.WithMCP(mcp.Options{MaxBytes: 4096}))
	if err != nil {
		t.Fatal(err)
	}
	s := serve(t, h)
	_, do := s.session("") // counts 1
	for range 2 {          // count 2 and 3
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

// TestEveryRequestCounts checks that every MCP request counts once against the caller's rate
// limit, whether it calls a function or not (initialize, notifications, ping, tools/list,
// static prompts and resources, an unknown tool), and that past it a request answers HTTP 429
// with Retry-After and the JSON-RPC error RATE-LIMITED, before any work (a tool's call answers
// its function's RATE-LIMITED as a tool error, as every error of a function).
func TestEveryRequestCounts(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	fnapi.MustRegisterBuiltins(reg)
	requests := []string{
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"prompts/list"}`,
		`{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"hello"}}`,
		`{"jsonrpc":"2.0","id":5,"method":"resources/list"}`,
		`{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"text://static"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"nope"}}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"a":1}}}`,
		`{"jsonrpc":"2.0","id":9,"method":"logging/setLevel","params":{"level":"info"}}`,
	}
	limit := transport.RateLimit{PerSecond: 0.001, Burst: 1 + len(requests)} // initialize and each request
	h, err := fnapi.New(reg, fnapi.WithInterceptors(limit.Interceptor()), fnapi.WithMCP(mcp.Options{
		Resources: []mcp.Resource{{URI: "text://static", Name: "static", Text: "static text"}},
		Prompts:   []mcp.Prompt{{Name: "hello", Text: "Say hello."}},
	}))
	if err != nil {
		t.Fatal(err)
	}
	s := serve(t, h)
	_, do := s.session("")
	for _, req := range requests {
		if a := do(req); a.status >= 300 || a.errCode() == jsonrpc.CodeServerError {
			t.Fatalf("%s: %d %s", req, a.status, a.body)
		}
	}
	for _, req := range append(requests, `{"jsonrpc":"2.0","id":10,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`) {
		a := do(req)
		if strings.Contains(req, `"echo"`) { // the function's call answers, as a tool's error
			if !strings.Contains(toolText(a.result()), `"error":"RATE-LIMITED"`) {
				t.Errorf("a call past the limit: %s", a.body)
			}
			continue
		}
		e, _ := a.last()["error"].(map[string]any)
		if a.status != http.StatusTooManyRequests || a.header.Get("Retry-After") == "" || e["message"] != "RATE-LIMITED" {
			t.Errorf("%s past the limit: %d %v %s", req, a.status, a.header, a.body)
		}
		if id := a.last()["id"]; strings.Contains(req, `"id":`) && id == nil {
			t.Errorf("%s: the error has no id: %s", req, a.body)
		}
	}
}
