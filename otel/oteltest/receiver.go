// Package oteltest is a real OTLP/HTTP trace receiver for tests: applications point their
// exporter at it (OTEL_EXPORTER_OTLP_ENDPOINT, or otlptracehttp.WithEndpointURL) and read back
// the spans it decoded with the OpenTelemetry protocol's own types.
package oteltest

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// MaxRequestBytes is the largest export request the receiver reads; a larger one answers 413.
const MaxRequestBytes = 16 << 20

// Receiver collects the spans of OTLP/HTTP export requests (POST /v1/traces, protobuf, plain or
// gzip). It is safe for concurrent use.
type Receiver struct {
	srv     *httptest.Server
	mu      sync.Mutex
	spans   []*Span
	arrived chan struct{} // closed and replaced whenever spans arrive
}

// Span is a received span with what the exporter sent about its origin.
type Span struct {
	*tracepb.Span
	// Resource holds the resource's attributes (service.name, ...) as text.
	Resource map[string]string
	// Scope is the instrumentation scope's name.
	Scope string
}

// NewReceiver starts a receiver on a free local port; the test's cleanup stops it.
func NewReceiver(t testing.TB) *Receiver {
	r := &Receiver{arrived: make(chan struct{})}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

// Endpoint returns the base URL to export to, as OTEL_EXPORTER_OTLP_ENDPOINT takes it; the
// traces go to Endpoint()+"/v1/traces".
func (r *Receiver) Endpoint() string { return r.srv.URL }

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost || req.URL.Path != "/v1/traces" {
		http.Error(w, "POST /v1/traces only", http.StatusNotFound)
		return
	}
	if ct := req.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		http.Error(w, "protobuf only, not "+ct, http.StatusUnsupportedMediaType)
		return
	}
	var body io.Reader = http.MaxBytesReader(w, req.Body, MaxRequestBytes)
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = io.LimitReader(zr, MaxRequestBytes)
	}
	data, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
		return
	}
	var msg collectortrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(data, &msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.add(&msg)
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func (r *Receiver) add(msg *collectortrace.ExportTraceServiceRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rs := range msg.GetResourceSpans() {
		res := map[string]string{}
		for _, kv := range rs.GetResource().GetAttributes() {
			res[kv.GetKey()] = kv.GetValue().GetStringValue()
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				r.spans = append(r.spans, &Span{Span: s, Resource: res, Scope: ss.GetScope().GetName()})
			}
		}
	}
	close(r.arrived)
	r.arrived = make(chan struct{})
}

// Spans returns the spans received so far, in the order they arrived.
func (r *Receiver) Spans() []*Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*Span(nil), r.spans...)
}

// Wait returns the first received span for which match is true, waiting for it up to timeout;
// it fails the test when none arrives.
func (r *Receiver) Wait(t testing.TB, timeout time.Duration, match func(*Span) bool) *Span {
	t.Helper()
	deadline := time.After(timeout)
	for {
		r.mu.Lock()
		for _, s := range r.spans {
			if match(s) {
				r.mu.Unlock()
				return s
			}
		}
		arrived := r.arrived
		r.mu.Unlock()
		select {
		case <-arrived:
		case <-deadline:
			t.Fatalf("oteltest: no matching span within %s (%d spans received)", timeout, len(r.Spans()))
			return nil
		}
	}
}

// Attr returns the value of a span's attribute as text ("" when absent): strings as they are,
// numbers and booleans formatted.
func Attr(s *tracepb.Span, key string) string {
	return attrText(s.GetAttributes(), key)
}
