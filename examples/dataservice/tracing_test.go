package main

import (
	"context"
	"encoding/hex"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/otel/oteltest"
)

func TestTracingFromEnvironment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  map[string]string
		on   bool
		err  string
	}{
		{"unset: off", nil, false, ""},
		{"an endpoint: on", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}, true, ""},
		{"a traces endpoint: on", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:1/v1/traces"}, true, ""},
		{"otlp exporter: on", map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true, ""},
		{"none: off", map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}, false, ""},
		{"SDK disabled: off", map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"}, false, ""},
		{"another exporter", map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, false, `OTEL_TRACES_EXPORTER="zipkin"`},
		{"gRPC", map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, false, "http/protobuf only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tp, err := tracing(context.Background(), func(k string) string { return tt.env[k] })
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (tp != nil) != tt.on {
				t.Fatalf("tracing on = %v, want %v", tp != nil, tt.on)
			}
			if tp != nil {
				_ = tp.Shutdown(context.Background())
			}
		})
	}
}

// TestTraces runs the service with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a real OTLP/HTTP
// receiver: a query sent with a traceparent is a span of that trace, its store query a child
// span, and its log line names both ids.
func TestTraces(t *testing.T) {
	// Serial: t.Setenv sets the environment the service's process inherits.
	recv := oteltest.NewReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.Endpoint())
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
	t.Setenv("OTEL_SERVICE_NAME", "dataservice-test")
	t.Setenv("SVC_ADMIN_PASSWORD", "traced admin password")
	p := startService(t, "-addr", "127.0.0.1:0", "-data", t.TempDir())

	const trace = "5bf92f3577b34da6a3ce929d0e0e4736"
	header := http.Header{"Traceparent": {"00-" + trace + "-00f067aa0ba902b7-01"}}
	session := strings.Trim(get(t, p.url+"/api/login?user=admin&password="+url.QueryEscape(`"traced admin password"`), nil), "\n")
	if !strings.Contains(session, `"result":"session:`) {
		t.Fatalf("login: %s", session)
	}
	id := session[strings.Index(session, "session:") : len(session)-2]
	header.Set("Cookie", "Svc-Session="+id)
	header.Set("Sec-Fetch-Site", "same-origin") // a program acting for its user, as the client package does
	body := get(t, p.url+"/api/1.1/query?expr="+url.QueryEscape(`"traffic BY protocol"`), header)
	if !strings.Contains(body, `"type":"result"`) {
		t.Fatalf("query: %s", body)
	}

	call := recv.Wait(t, 30*time.Second, func(s *oteltest.Span) bool {
		return s.GetName() == "query" && hex.EncodeToString(s.GetTraceId()) == trace
	})
	if call.Resource["service.name"] != "dataservice-test" {
		t.Errorf("service.name %q, want OTEL_SERVICE_NAME's", call.Resource["service.name"])
	}
	for k, want := range map[string]string{"fnapi.version": "1.1", "fnapi.transport": "http", "fnapi.code": "OK"} {
		if got := oteltest.Attr(call.Span, k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	store := recv.Wait(t, 30*time.Second, func(s *oteltest.Span) bool {
		return s.GetName() == "records.query" && string(s.GetParentSpanId()) == string(call.GetSpanId())
	})
	if got := oteltest.Attr(store.Span, "db.system.name"); got != "duckdb" {
		t.Errorf("store span db.system.name %q", got)
	}
	p.stop(t)
	if line := logLine(p.log.String(), `"function":"query"`); !strings.Contains(line, `"trace_id":"`+trace+`"`) ||
		!strings.Contains(line, `"span_id":"`+hex.EncodeToString(call.GetSpanId())+`"`) {
		t.Errorf("the query's log line lacks its trace and span ids: %s", line)
	}
}

func get(t *testing.T, u string, header http.Header) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	if header != nil {
		req.Header = header
	}
	res, err := insecure().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}

// logLine returns the first line of the log that holds s.
func logLine(log, s string) string {
	for line := range strings.SplitSeq(log, "\n") {
		if strings.Contains(line, s) {
			return line
		}
	}
	return ""
}
