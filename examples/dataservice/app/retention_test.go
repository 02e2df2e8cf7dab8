package app_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/internal/testutil"
)

// TestRetention checks that lowering the retention deletes older records at once.
func TestRetention(t *testing.T) {
	t.Parallel()
	s := start(t)
	ctx := context.Background()
	c := s.http(t, client.WithAPIKey(s.key))
	old := time.Now().Add(-3 * time.Hour).Unix()
	recs := []any{record(old, "10.2.0.1", "10.2.0.2", 22, 1, 1), record(time.Now().Unix()-60, "10.2.0.1", "10.2.0.2", 22, 1, 1)}
	if err := c.Call(ctx, "ingest", map[string]any{"records": recs}, nil); err != nil {
		t.Fatal(err)
	}
	count := func() float64 {
		var res []result
		if err := c.Call(ctx, "query", map[string]any{"expr": "records SINCE @now-86400"}, &res); err != nil {
			t.Fatal(err)
		}
		return res[0].Data[0][1][0].(float64)
	}
	if n := count(); n != 2 {
		t.Fatalf("%v records before", n)
	}
	if err := c.Call(ctx, "set-config", map[string]any{"values": map[string]any{"retention": "2h"}}, nil); err != nil {
		t.Fatal(err)
	}
	testutil.Until(t, testutil.Wait, "retention 2h to apply", func() error {
		if n := count(); n != 1 {
			return fmt.Errorf("still %v records", n)
		}
		return nil
	})
}

// TestCallRateLimit checks that a caller calling much faster than the limit (200 calls a second,
// bursts of 400) is told to wait.
func TestCallRateLimit(t *testing.T) {
	// Serial: a rate limit under test, which a loaded machine slows the calls under.
	s := start(t)
	c := s.http(t, client.WithAPIKey(s.key))
	for i := range 2000 {
		err := c.Call(context.Background(), "get-api-version", nil, nil)
		if err == nil {
			continue
		}
		var e *apierr.Error
		if !errors.As(err, &e) || e.Code() != apierr.RateLimited.Code() || e.Attr("retry_after") == nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if i < 400 {
			t.Fatalf("limited after %d calls, within the burst of 400", i)
		}
		return
	}
	t.Fatal("2000 calls in a row were never limited")
}
