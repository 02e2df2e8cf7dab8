package transport

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fnapi/fnapi/apierr"
)

// Metrics counts calls per function and serves the counts in the Prometheus text format:
//
//	fnapi_calls_total{function}            calls finished
//	fnapi_errors_total{function,code}      calls that ended in an error, by code
//	fnapi_in_flight{function}              calls running
//	fnapi_call_duration_seconds{function}  a histogram of call durations
//	fnapi_chunks_total{function}           chunks sent by streams
//	fnapi_websocket_connections            WebSocket connections open
//
// The zero value is ready to use. It is safe for concurrent use.
type Metrics struct {
	mu    sync.RWMutex
	funcs map[string]*funcMetrics
	conns atomic.Int64
}

// buckets are the histogram's upper bounds, in seconds.
var buckets = [...]float64{0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30}

type funcMetrics struct {
	calls    atomic.Int64
	inFlight atomic.Int64
	chunks   atomic.Int64
	counts   [len(buckets) + 1]atomic.Int64 // per bucket, the last one +Inf
	sumNanos atomic.Int64
	mu       sync.Mutex
	errors   map[apierr.Code]int64
}

func (m *Metrics) get(fn string) *funcMetrics {
	m.mu.RLock()
	f := m.funcs[fn]
	m.mu.RUnlock()
	if f != nil {
		return f
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.funcs == nil {
		m.funcs = make(map[string]*funcMetrics)
	}
	if f = m.funcs[fn]; f == nil {
		f = &funcMetrics{errors: make(map[apierr.Code]int64)}
		m.funcs[fn] = f
	}
	return f
}

func (m *Metrics) begin(fn string) { m.get(fn).inFlight.Add(1) }

func (m *Metrics) end(fn string, code apierr.Code, d time.Duration) {
	f := m.get(fn)
	f.inFlight.Add(-1)
	f.calls.Add(1)
	f.sumNanos.Add(int64(d))
	i, _ := slices.BinarySearch(buckets[:], d.Seconds())
	f.counts[i].Add(1)
	if code != "" {
		f.mu.Lock()
		f.errors[code]++
		f.mu.Unlock()
	}
}

// chunk counts one chunk sent by a stream of fn.
func (m *Metrics) chunk(fn string) { m.get(fn).chunks.Add(1) }

// connection counts a WebSocket connection opening (+1) or closing (-1).
func (m *Metrics) connection(delta int64) { m.conns.Add(delta) }

// Handler serves the metrics in the Prometheus text exposition format.
func (m *Metrics) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		m.mu.RLock()
		names := make([]string, 0, len(m.funcs))
		for n := range m.funcs {
			names = append(names, n)
		}
		m.mu.RUnlock()
		slices.Sort(names)
		fmt.Fprintln(w, "# TYPE fnapi_calls_total counter")
		for _, n := range names {
			fmt.Fprintf(w, "fnapi_calls_total{function=%q} %d\n", n, m.get(n).calls.Load())
		}
		fmt.Fprintln(w, "# TYPE fnapi_errors_total counter")
		for _, n := range names {
			f := m.get(n)
			f.mu.Lock()
			codes := make([]string, 0, len(f.errors))
			for c := range f.errors {
				codes = append(codes, string(c))
			}
			slices.Sort(codes)
			for _, c := range codes {
				fmt.Fprintf(w, "fnapi_errors_total{function=%q,code=%q} %d\n", n, c, f.errors[apierr.Code(c)])
			}
			f.mu.Unlock()
		}
		fmt.Fprintln(w, "# TYPE fnapi_in_flight gauge")
		for _, n := range names {
			fmt.Fprintf(w, "fnapi_in_flight{function=%q} %d\n", n, m.get(n).inFlight.Load())
		}
		fmt.Fprintln(w, "# TYPE fnapi_chunks_total counter")
		for _, n := range names {
			fmt.Fprintf(w, "fnapi_chunks_total{function=%q} %d\n", n, m.get(n).chunks.Load())
		}
		fmt.Fprintln(w, "# TYPE fnapi_call_duration_seconds histogram")
		for _, n := range names {
			f := m.get(n)
			var cum int64
			for i, b := range buckets {
				cum += f.counts[i].Load()
				fmt.Fprintf(w, "fnapi_call_duration_seconds_bucket{function=%q,le=%q} %d\n", n, strconv.FormatFloat(b, 'g', -1, 64), cum)
			}
			cum += f.counts[len(buckets)].Load()
			fmt.Fprintf(w, "fnapi_call_duration_seconds_bucket{function=%q,le=\"+Inf\"} %d\n", n, cum)
			fmt.Fprintf(w, "fnapi_call_duration_seconds_sum{function=%q} %g\n", n, time.Duration(f.sumNanos.Load()).Seconds())
			fmt.Fprintf(w, "fnapi_call_duration_seconds_count{function=%q} %d\n", n, cum)
		}
		fmt.Fprintln(w, "# TYPE fnapi_websocket_connections gauge")
		fmt.Fprintf(w, "fnapi_websocket_connections %d\n", m.conns.Load())
	})
}
