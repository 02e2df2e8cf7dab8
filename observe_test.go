package fnapi_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// TestLogAndMetrics checks what an operator sees: one log line per call with its function,
// version, transport, duration and code, the internals of an internal error in the log (and only
// there), no token in the log, and per-function Prometheus metrics.
func TestLogAndMetrics(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zapcore.InfoLevel)
	reg := registry.New()
	fnapi.MustRegisterBuiltins(reg)
	pub := registry.Requires(decl.Public)
	reg.MustRegister("fail", func(context.Context) error { return errors.New("disk /var/db full") }, pub)
	api, err := fnapi.New(reg, fnapi.WithLogger(zap.New(core)), fnapi.WithMetrics())
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", api))
	mux.Handle("/metrics", api.Metrics())
	srv := httptest.NewTLSServer(mux)
	defer srv.Close()
	get := func(path string) string {
		res, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return string(b)
	}
	get("/api/echo?a=1&_key=secret:0d2a3b4c-5d6e-4f70-8192-a3b4c5d6e7f8")
	get("/api/1.0/echo?b=2")
	if body := get("/api/fail"); strings.Contains(body, "disk") {
		t.Fatalf("internals reached the client: %s", body)
	}

	var calls []map[string]any
	for _, e := range logs.All() {
		if strings.Contains(e.Message+fmt.Sprint(e.ContextMap()), "0d2a3b4c") {
			t.Fatalf("a token was logged: %v", e)
		}
		if e.Message == "call" {
			calls = append(calls, e.ContextMap())
		}
	}
	if len(calls) != 3 {
		t.Fatalf("%d call lines, want 3: %v", len(calls), logs.All())
	}
	for i, want := range []map[string]string{
		{"function": "echo", "version": "1.0", "transport": "http", "code": ""},
		{"function": "echo", "version": "1.0", "transport": "http", "code": ""},
		{"function": "fail", "version": "1.0", "transport": "http", "code": "INTERNAL-ERROR"},
	} {
		for k, v := range want {
			if calls[i][k] != v {
				t.Errorf("call line %d: %s = %v, want %q", i, k, calls[i][k], v)
			}
		}
		if _, ok := calls[i]["duration"]; !ok {
			t.Errorf("call line %d has no duration", i)
		}
	}
	internal := logs.FilterMessage("internal error").All()
	if len(internal) != 1 || !strings.Contains(fmt.Sprint(internal[0].ContextMap()["error"]), "disk /var/db full") {
		t.Fatalf("the internal error's cause is not in the log: %v", internal)
	}

	m := get("/metrics")
	for _, line := range []string{
		`fnapi_calls_total{function="echo"} 2`,
		`fnapi_calls_total{function="fail"} 1`,
		`fnapi_errors_total{function="fail",code="INTERNAL-ERROR"} 1`,
		`fnapi_in_flight{function="echo"} 0`,
		`fnapi_call_duration_seconds_count{function="echo"} 2`,
	} {
		if !strings.Contains(m, line+"\n") {
			t.Errorf("metrics lack %q:\n%s", line, m)
		}
	}
}

// TestUnencodableResultIsLogged: a result that does not encode as JSON (here NaN) answers
// INTERNAL-ERROR, and the operator finds why in the log, over HTTP as over WebSocket.
func TestUnencodableResultIsLogged(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zapcore.InfoLevel)
	reg := registry.New()
	reg.MustRegister("nan", func() float64 { return math.NaN() }, registry.Requires(decl.Public))
	api, err := fnapi.New(reg, fnapi.WithLogger(zap.New(core)))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewTLSServer(http.StripPrefix("/api", api))
	defer srv.Close()
	callers := map[string]func() error{
		"http": func() error {
			c, err := client.New(srv.URL+"/api", client.WithHTTPClient(srv.Client()))
			if err != nil {
				return err
			}
			return c.Call(context.Background(), "nan", nil, nil)
		},
		"ws": func() error {
			ws, err := client.DialWS(context.Background(), "wss"+strings.TrimPrefix(srv.URL, "https")+"/api/ws", client.WithHTTPClient(srv.Client()))
			if err != nil {
				return err
			}
			defer ws.Close()
			return ws.Call(context.Background(), "nan", nil, nil)
		},
	}
	for name, call := range callers {
		t.Run(name, func(t *testing.T) {
			before := logs.FilterMessage("result does not encode as JSON").Len()
			if err := call(); !errors.Is(err, apierr.New(apierr.Internal)) {
				t.Fatalf("call answered %v, want INTERNAL-ERROR", err)
			}
			lines := logs.FilterMessage("result does not encode as JSON").All()[before:]
			if len(lines) != 1 || lines[0].ContextMap()["function"] != "nan" ||
				!strings.Contains(fmt.Sprint(lines[0].ContextMap()["error"]), "NaN") {
				t.Fatalf("the encoding error is not in the log: %v", lines)
			}
		})
	}
}
