package app_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/fnapi/fnapi/client"
)

// TestFollowAnswersInFull checks what a live dashboard sees: once a followed query has
// answered in full, every later chunk is a full answer too (progress 1), never a partial one
// that would replace the full answer with a fraction of the traffic.
func TestFollowAnswersInFull(t *testing.T) {
	t.Parallel()
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

// TestFollowSeesLateRecords checks that a followed query, answered from what changed since
// its last answer, counts records that arrive late (times well inside its period, long
// before its last answer) and those that arrive in order.
func TestFollowSeesLateRecords(t *testing.T) {
	t.Parallel()
	s := start(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := s.http(t, client.WithAPIKey(s.key))
	ingest := func(n int, at int64) {
		t.Helper()
		var recs []any
		for range n {
			recs = append(recs, record(at, "10.3.0.1", "10.3.0.2", 443, 10, 20))
		}
		if err := c.Call(ctx, "ingest", map[string]any{"records": recs}, nil); err != nil {
			t.Fatal(err)
		}
	}
	ingest(2, time.Now().Unix()-1800)
	args := map[string]any{"expr": "records; traffic BY server.port", "follow": true, "interval": 1}
	// The counts to see in turn: late records once the shared computation has answered
	// twice (its first answer reads the whole period), then one record in order.
	want := []float64{2, 5, 6}
	chunks, seen := 0, 0
	for chunk, err := range c.Stream(ctx, "query", args) {
		if err != nil {
			t.Fatal(err)
		}
		var ch struct {
			Result   []result `json:"result"`
			Progress float64  `json:"progress"`
		}
		if err := json.Unmarshal(chunk, &ch); err != nil {
			t.Fatal(err)
		}
		if ch.Progress != 1 {
			continue
		}
		if chunks++; chunks > 30 {
			t.Fatalf("30 answers without %v records: %s", want[0], chunk)
		}
		if n := ch.Result[0].Data[0][1][0].(float64); n != want[0] {
			continue
		}
		if seen++; len(want) == 3 && seen < 3 { // the caller's own first answer, then two shared ones
			continue
		}
		switch want = want[1:]; len(want) {
		case 2:
			ingest(3, time.Now().Unix()-900)
		case 1:
			ingest(1, time.Now().Unix())
		}
		if len(want) == 0 {
			return
		}
	}
	t.Fatal("the followed query ended")
}
