package alerts_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/alerts"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/state"
)

// TestLayerRule: a rule over the HTTP layer fires for the host whose requests are slow, and
// for it alone: the other host's requests are fast, and a slow conversation of the transport
// to the same server is no request.
func TestLayerRule(t *testing.T) {
	t.Parallel()
	e := newFullEnv(t, alerts.Options{})
	t0 := time.Now().Truncate(time.Hour).Add(-time.Hour)
	r := e.rule(t, state.AlertRule{Name: "slow site",
		Query: "p95(srt) BY http.host FROM http HAVING p95(srt) > 0.5 SINCE @now-300"})
	var recs []records.Record
	add := func(members string) {
		raw := fmt.Sprintf(`{"time": %d, "protocol": "tcp", "client": {"ip": "10.9.9.9", "port": 50000},
			"server": {"ip": "10.0.0.1", "port": 80}%s}`, t0.Unix()-60, members)
		rec, err := records.ParseRecord(json.RawMessage(raw), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	for i := range 20 {
		add(fmt.Sprintf(`, "layer": "http", "http": {"method": "GET", "status": 200, "host": "slow.example", "path": "/"}, "srt": %g`, 0.8+float64(i)/100))
		add(`, "layer": "http", "http": {"method": "GET", "status": 200, "host": "fast.example", "path": "/"}, "srt": 0.05`)
	}
	add(`, "srt": 9, "srt_samples": 4`) // the transport's
	if err := e.records.Ingest(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
	e.tick(t, t0)
	if got := e.states(t, r.ID); len(got) != 1 || !strings.HasPrefix(got[0], `firing ["slow.example"] [0.9`) {
		t.Fatalf("history %q; want slow.example firing alone, at about 0.99 s", got)
	}
}
