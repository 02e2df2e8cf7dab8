package app_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/inlet"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/internal/testutil"
)

// TestQueueLagAlert checks that an alert rule watches the queue's lag (issue 41): on a sensor
// publishing through a real nats-server while no consuming node runs, the rule `oldest_age
// FROM queue HAVING oldest_age > 1` fires; once a consuming node started and drained the
// stream, it resolves. A node without -queue refuses FROM queue with INVALID-ARGUMENT.
func TestQueueLagAlert(t *testing.T) {
	// Serial: t.Setenv sets the process environment.
	nats := testenv.NATS(t)
	t.Setenv("SVC_ADMIN_PASSWORD", "correct horse battery staple")
	ctx := context.Background()
	sensor := startNode(t, app.Config{Inlet: inlet.Configuration{Queue: nats.URL}})
	c := sensor.client(t)
	rec := []any{record(time.Now().Unix()-1, "10.1.1.1", "10.88.0.1", 443, 1, 2)}
	if err := c.Call(ctx, "ingest", map[string]any{"records": rec}, nil); err != nil {
		t.Fatal(err)
	}
	// The query function answers the layer too: the batch waits, older than a second.
	testutil.Until(t, testutil.Wait, "the batch waiting over a second", func() error {
		var res []struct{ Data [][2][]float64 } // rows of [keys, values]
		if err := c.Call(ctx, "query", map[string]any{"expr": "pending, oldest_age FROM queue"}, &res); err != nil {
			return err
		}
		if v := res[0].Data[0][1]; v[0] != 1 || v[1] <= 1 {
			return fmt.Errorf("pending, oldest_age = %v", v)
		}
		return nil
	})
	r, err := client.Call(ctx, c, api.CreateAlertRule, api.CreateAlertRuleArgs{Name: "lag",
		Query: "oldest_age FROM queue HAVING oldest_age > 1", Interval: "10s"})
	if err != nil {
		t.Fatal(err)
	}
	history := func() []string {
		hist, err := client.Call(ctx, c, api.AlertHistory, api.AlertHistoryArgs{Rule: r.ID})
		if err != nil {
			t.Fatal(err)
		}
		var states []string
		for _, e := range hist {
			states = append(states, e.State)
		}
		return states
	}
	testutil.Until(t, testutil.Wait, "the lag alert firing", func() error {
		if h := history(); !slices.Equal(h, []string{"firing"}) {
			return fmt.Errorf("history %q", h)
		}
		return nil
	})
	startNode(t, app.Config{Inlet: inlet.Configuration{Queue: nats.URL, Consume: true}})
	testutil.Until(t, 45*time.Second, "the lag alert resolved once the stream drained", func() error {
		if h := history(); !slices.Equal(h, []string{"resolved", "firing"}) {
			return fmt.Errorf("history %q", h)
		}
		return nil
	})

	plain := startNode(t, app.Config{})
	err = plain.client(t).Call(ctx, "query", map[string]any{"expr": "pending FROM queue"}, nil)
	if err == nil || apierr.From(err).Code() != apierr.InvalidArgument.Code() {
		t.Errorf("FROM queue without -queue: %v, want INVALID-ARGUMENT", err)
	}
}
