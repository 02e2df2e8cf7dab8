package oteltest

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// FuzzReceiver posts any body as an export request: the receiver answers 200 with the spans it
// decoded or 400, and never panics.
func FuzzReceiver(f *testing.F) {
	valid, _ := proto.Marshal(&collectortrace.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{{
		ScopeSpans: []*tracepb.ScopeSpans{{Spans: []*tracepb.Span{{Name: "call", TraceId: make([]byte, 16)}}}},
	}}})
	f.Add(valid, false)
	f.Add([]byte{0x0a, 0xff}, false)
	f.Add([]byte("not gzip"), true)
	f.Fuzz(func(t *testing.T, body []byte, gzipped bool) {
		r := &Receiver{arrived: make(chan struct{})}
		req := httptest.NewRequest(http.MethodPost, "/v1/traces", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/x-protobuf")
		if gzipped {
			req.Header.Set("Content-Encoding", "gzip")
		}
		w := httptest.NewRecorder()
		r.serve(w, req)
		var msg collectortrace.ExportTraceServiceRequest
		decodes := !gzipped && proto.Unmarshal(body, &msg) == nil
		switch {
		case w.Code == http.StatusOK && !gzipped && !decodes:
			t.Fatalf("accepted a body protobuf does not decode")
		case w.Code == http.StatusBadRequest && decodes:
			t.Fatalf("refused a body protobuf decodes")
		case w.Code != http.StatusOK && w.Code != http.StatusBadRequest:
			t.Fatalf("status %d", w.Code)
		}
	})
}
