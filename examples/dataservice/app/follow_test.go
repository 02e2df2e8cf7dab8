package app_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/fnapi/fnapi/client"
)

// TestFollowAnswersInFull checks what a live dashboard sees: once a followed query has
// answered in full, every later chunk is a full answer too (progress 1), never a partial one
// that would replace the full answer with a fraction of the traffic.
func TestFollowAnswersInFull(t *testing.T) {
	s := start(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := s.http(t, client.WithAPIKey(s.key))
	args := map[string]any{"expr": "traffic", "follow": true, "interval": 1}
	full, later := false, 0
	for chunk, err := range c.Stream(ctx, "query", args) {
		if err != nil {
			t.Fatal(err)
		}
		var ch struct {
			Progress float64 `json:"progress"`
		}
		if err := json.Unmarshal(chunk, &ch); err != nil {
			t.Fatal(err)
		}
		switch {
		case !full:
			full = ch.Progress == 1
		case ch.Progress != 1:
			t.Fatalf("after a full answer, a chunk with progress %v: %s", ch.Progress, chunk)
		default:
			later++
		}
		if later == 2 {
			break
		}
	}
	if later < 2 {
		t.Fatalf("the followed query ended after %d full answers", later)
	}
}
