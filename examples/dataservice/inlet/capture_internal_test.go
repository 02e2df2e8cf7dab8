package inlet

import (
	"fmt"
	"net/http/httptest"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/capture"
	"github.com/fnapi/fnapi/examples/dataservice/histogram"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// TestValidCaptured checks the mapping of a probe's record to a traffic record: times become
// microsecond sums beside their counts and histograms, a server name no record may hold is dropped with the
// record kept, and a record of an impossible time is refused rather than failing its batch.
func TestValidCaptured(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_100, 0)
	var srt histogram.Histogram
	srt.Add(0.14)
	r := capture.Record{Time: 1_700_000_040, Protocol: 6, ServerName: "example.com",
		Client: capture.Side{IP: netip.MustParseAddr("10.0.0.1"), Port: 40000, Packets: 3, Retrans: 1},
		Server: capture.Side{IP: netip.MustParseAddr("10.0.0.2"), Port: 443, Packets: 2,
			RTT: records.Timing{Sum: 80002, Samples: 2}},
		SRT: records.Timing{Sum: 140000, Samples: 1, Hist: srt}, Resets: 1}
	got, ok := validCaptured(&r, now)
	if !ok || got.Application != "https" || !reflect.DeepEqual(got.Server.RTT, records.Timing{Sum: 80002, Samples: 2}) ||
		!reflect.DeepEqual(got.SRT, records.Timing{Sum: 140000, Samples: 1, Hist: srt}) || !reflect.DeepEqual(got.CT, records.Timing{}) ||
		got.Client.Retrans != 1 || got.Resets != 1 || got.ServerName != "example.com" {
		t.Errorf("validCaptured = %+v, %v", got, ok)
	}
	// A record of the HTTP layer keeps its layer and keys.
	h := r
	h.Layer, h.HTTP = records.LayerHTTP, records.HTTP{Method: "GET", Status: 200, Host: "example.com", Path: "/a/{n}"}
	if got, ok := validCaptured(&h, now); !ok || got.Layer != records.LayerHTTP || got.HTTP != h.HTTP {
		t.Errorf("an HTTP record: %+v %+v, %v", got.Layer, got.HTTP, ok)
	}
	r.ServerName = "bad\x01name"
	if got, ok := validCaptured(&r, now); !ok || got.ServerName != "" {
		t.Errorf("a name with a control character: %q, %v; want the record without it", got.ServerName, ok)
	}
	r.Time = now.Add(48 * time.Hour).Unix()
	if _, ok := validCaptured(&r, now); ok {
		t.Error("a record two days ahead is valid")
	}
}

// TestCaptureTableMetrics checks that /metrics and collector-status carry the tables'
// counters (server names left out, the HTTP, DNS and TLS layers'), each its own.
func TestCaptureTableMetrics(t *testing.T) {
	t.Parallel()
	c := &capturing{}
	for i := range probeCounters {
		c.tables[i].Store(uint64(i + 1))
	}
	w := httptest.NewRecorder()
	c.metricsHandler(nil).ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	st := c.status()
	for i, p := range probeCounters {
		if want := fmt.Sprintf("\n%s %d\n", p.metric, i+1); !strings.Contains(w.Body.String(), want) {
			t.Errorf("/metrics lacks %q:\n%s", want, w.Body.String())
		}
		if got := *p.status(st); got != uint64(i+1) {
			t.Errorf("collector-status's %s = %d, want %d", p.metric, got, i+1)
		}
	}
	if st.HTTP.Records != 2 || st.DNS.Records != 9 || st.TLS.CertsSkipped != 14 || st.DNS.NamesLeftOut != 12 || st.TLS.IssuersLeftOut != 15 || st.NamesLeftOut != 1 {
		t.Errorf("collector-status's capture %+v", st)
	}
}
