package otel_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
	"github.com/fnapi/fnapi/otel/oteltest"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

func hexID(b []byte) string { return hex.EncodeToString(b) }

// get calls path on the server with the given headers and returns the body.
func (s *tracedServer) get(t *testing.T, path string, header http.Header) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header
	res, err := s.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}

// wantAttrs checks a span's attributes.
func wantAttrs(t *testing.T, sp *oteltest.Span, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got := oteltest.Attr(sp.Span, k); got != v {
			t.Errorf("span %s: attribute %s = %q, want %q", sp.GetName(), k, got, v)
		}
	}
}

// noSecrets checks that no attribute of the span holds an argument value or a token.
func noSecrets(t *testing.T, sp *oteltest.Span) {
	t.Helper()
	for _, kv := range sp.GetAttributes() {
		if v := kv.GetValue().String(); strings.Contains(v, secretArg) || strings.Contains(v, secretHeader) {
			t.Errorf("span %s: attribute %s holds a secret: %s", sp.GetName(), kv.GetKey(), v)
		}
	}
}

func TestHTTPCallContinuesTraceparent(t *testing.T) {
	t.Parallel()
	s := newTracedServer(t)
	h := http.Header{"Traceparent": {traceparent}, "Tracestate": {"vendor=x"}, "Svc-Authorization": {secretHeader}}
	body := s.get(t, "/api/1.0/hello?name="+url.QueryEscape(`"`+secretArg+`"`), h)
	if !strings.Contains(body, `"type":"result"`) {
		t.Fatalf("answer %s", body)
	}
	sp := s.spanOf(t, "hello", traceID)
	if got := hexID(sp.GetParentSpanId()); got != parentSpan {
		t.Errorf("parent span %s, want %s", got, parentSpan)
	}
	if sp.GetKind() != tracepb.Span_SPAN_KIND_SERVER {
		t.Errorf("kind %v, want server", sp.GetKind())
	}
	if sp.GetTraceState() != "vendor=x" {
		t.Errorf("trace state %q, want vendor=x", sp.GetTraceState())
	}
	wantAttrs(t, sp, map[string]string{
		"rpc.system": "fnapi", "rpc.method": "hello", "fnapi.version": "1.0",
		"fnapi.transport": "http", "fnapi.stream": "false", "fnapi.code": "OK", "fnapi.call_id": "",
	})
	noSecrets(t, sp)
	if sp.Scope != "github.com/fnapi/fnapi/otel" {
		t.Errorf("scope %q", sp.Scope)
	}
	m := s.callLog(t, "hello", traceID).ContextMap()
	if m["span_id"] != hexID(sp.GetSpanId()) {
		t.Errorf("log line span_id %v, want the span's %s", m["span_id"], hexID(sp.GetSpanId()))
	}
}

func TestOutcomeCodeAndStatus(t *testing.T) {
	t.Parallel()
	s := newTracedServer(t)
	tests := []struct {
		path, trace, fn, code string
		status                tracepb.Status_StatusCode
	}{
		{"/api/hello?nom=1", "11111111111111111111111111111111", "hello", "TOO-FEW-ARGUMENTS", tracepb.Status_STATUS_CODE_UNSET},
		{"/api/broken", "22222222222222222222222222222222", "broken", "INTERNAL-ERROR", tracepb.Status_STATUS_CODE_ERROR},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			s.get(t, tt.path, http.Header{"Traceparent": {"00-" + tt.trace + "-" + parentSpan + "-01"}})
			sp := s.spanOf(t, tt.fn, tt.trace)
			wantAttrs(t, sp, map[string]string{"fnapi.code": tt.code})
			if sp.GetStatus().GetCode() != tt.status {
				t.Errorf("status %v, want %v", sp.GetStatus().GetCode(), tt.status)
			}
		})
	}
}

func TestHTTPStreamChunksAreEvents(t *testing.T) {
	t.Parallel()
	s := newTracedServer(t)
	body := s.get(t, "/api/stream/count?n=3", http.Header{"Traceparent": {traceparent}})
	if n := strings.Count(body, `"type":"chunk"`); n != 3 {
		t.Fatalf("%d chunks in %s", n, body)
	}
	sp := s.spanOf(t, "count", traceID)
	wantAttrs(t, sp, map[string]string{"fnapi.stream": "true", "fnapi.chunks": "3", "fnapi.code": "OK"})
	var idx []string
	for _, e := range sp.GetEvents() {
		if e.GetName() == "chunk" {
			idx = append(idx, oteltest.EventAttr(e, "index"))
		}
	}
	if strings.Join(idx, ",") != "0,1,2" {
		t.Errorf("chunk events %v, want indexes 0,1,2", idx)
	}
}

func TestUnsampledCallIsNotExportedButLogged(t *testing.T) {
	t.Parallel()
	s := newTracedServer(t)
	s.get(t, "/api/hello?name=1", http.Header{"Traceparent": {unsampledTP}})
	s.get(t, "/api/hello?name=2", http.Header{"Traceparent": {traceparent}})
	s.spanOf(t, "hello", traceID) // spans export in order: the first call's would be here
	for _, sp := range s.recv.Spans() {
		if hexID(sp.GetTraceId()) == unsampledID {
			t.Errorf("the unsampled call was exported: %v", sp)
		}
	}
	s.callLog(t, "hello", unsampledID) // its log line still names the trace
}

func TestCallWithoutTraceparentStartsATrace(t *testing.T) {
	t.Parallel()
	s := newTracedServer(t)
	s.get(t, "/api/hello?name=1", nil)
	sp := s.recv.Wait(t, 10*time.Second, func(sp *oteltest.Span) bool { return sp.GetName() == "hello" })
	if len(sp.GetParentSpanId()) != 0 {
		t.Errorf("a root span has parent %x", sp.GetParentSpanId())
	}
	s.callLog(t, "hello", hexID(sp.GetTraceId()))
}

// dial opens a WebSocket with the given handshake headers.
func (s *tracedServer) dial(t *testing.T, header http.Header) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	u := "wss" + strings.TrimPrefix(s.srv.URL, "https") + "/api/1.0/ws"
	conn, _, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPClient: s.srv.Client(), HTTPHeader: header})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.CloseNow() })
	return conn
}

// wsCall sends one message and reads answers until the call's last one (result, end or error).
func wsCall(t *testing.T, conn *websocket.Conn, msg string) []map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := conn.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for {
		var m map[string]any
		if err := wsjson.Read(ctx, conn, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
		if m["type"] != "chunk" {
			return out
		}
	}
}

func TestWebSocketTraceContext(t *testing.T) {
	t.Parallel()
	s := newTracedServer(t)
	conn := s.dial(t, http.Header{"Traceparent": {traceparent}})

	wsCall(t, conn, `{"id":7,"call":"hello","args":{"name":"`+secretArg+`"}}`)
	sp := s.spanOf(t, "hello", traceID)
	wantAttrs(t, sp, map[string]string{"fnapi.transport": "ws", "fnapi.call_id": "7", "fnapi.code": "OK"})
	noSecrets(t, sp)
	if got := hexID(sp.GetParentSpanId()); got != parentSpan {
		t.Errorf("parent %s, want the handshake's %s", got, parentSpan)
	}

	const callTrace, callParent = "33333333333333333333333333333333", "4444444444444444"
	meta, _ := json.Marshal(map[string]string{"traceparent": "00-" + callTrace + "-" + callParent + "-01"})
	answers := wsCall(t, conn, `{"id":"s","stream":"count","args":{"n":2},"meta":`+string(meta)+`}`)
	if len(answers) != 3 || answers[2]["type"] != "end" {
		t.Fatalf("answers %v", answers)
	}
	sp = s.spanOf(t, "count", callTrace)
	if got := hexID(sp.GetParentSpanId()); got != callParent {
		t.Errorf("parent %s, want the call's %s", got, callParent)
	}
	wantAttrs(t, sp, map[string]string{"fnapi.transport": "ws", "fnapi.call_id": "s", "fnapi.stream": "true", "fnapi.chunks": "2"})
	if n := len(sp.GetEvents()); n != 2 {
		t.Errorf("%d events, want 2 chunks", n)
	}
	m := s.callLog(t, "count", callTrace).ContextMap()
	if m["span_id"] != hexID(sp.GetSpanId()) {
		t.Errorf("log span_id %v, want %s", m["span_id"], hexID(sp.GetSpanId()))
	}
}

// TestMetaIsIgnoredWithoutTracing: a client may always send meta; without the interceptor the
// call answers as usual.
func TestMetaIsIgnoredWithoutTracing(t *testing.T) {
	t.Parallel()
	s := newUntracedServer(t)
	conn := s.dial(t, nil)
	answers := wsCall(t, conn, `{"id":1,"call":"hello","args":{"name":"x"},"meta":{"traceparent":"`+traceparent+`"}}`)
	if answers[0]["result"] != "hello x" {
		t.Fatalf("answer %v", answers)
	}
}
