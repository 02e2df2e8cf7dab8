package app_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/internal/testutil"
)

// TestQueryGroupsBound checks that the group limit is the whole query's: forty statements of a
// wide BY are refused with TOO-MANY-GROUPS naming the limit, where one of them passes.
func TestQueryGroupsBound(t *testing.T) {
	t.Parallel()
	s := start(t, func(c *app.Config) { c.Query.MaxQueryGroups = 20_000 })
	ctx := context.Background()
	c := s.http(t, client.WithAPIKey(s.key))
	now := time.Now().Unix()
	recs := make([]any, 1000)
	for i := range recs {
		r := record(now-60, fmt.Sprintf("10.0.%d.%d", i/250, i%250), "10.9.9.9", 443, 1, 1)
		r["client"].(map[string]any)["port"] = 10000 + i
		recs[i] = r
	}
	if err := c.Call(ctx, "ingest", map[string]any{"records": recs}, nil); err != nil {
		t.Fatal(err)
	}
	wide := "records BY client.ip, client.port, server.port SINCE @now-600"
	var one []struct{ Data []any }
	if err := c.Call(ctx, "query", map[string]any{"expr": wide}, &one); err != nil || len(one[0].Data) != 1000 {
		t.Fatalf("one wide statement: %d rows, %v", len(one), err)
	}
	forty := strings.TrimSuffix(strings.Repeat(wide+"; ", 40), "; ")
	check := func(err error) {
		t.Helper()
		var e *apierr.Error
		if code(err) != "TOO-MANY-GROUPS" || !errors.As(err, &e) || e.Attr("limit") != 20000.0 {
			t.Fatalf("40 wide statements: %v, want TOO-MANY-GROUPS with limit 20000", err)
		}
	}
	check(c.Call(ctx, "query", map[string]any{"expr": forty}, nil))
	for _, err := range c.Stream(ctx, "query", map[string]any{"expr": forty}) {
		if err != nil {
			check(err)
			break
		}
	}
}

// TestFollowBound checks that one caller holds at most MaxFollows followed queries: one more is
// refused with LIMIT-REACHED, also on another connection with another credential of the same
// user, and ending one makes room again.
func TestFollowBound(t *testing.T) {
	t.Parallel()
	s := start(t, func(c *app.Config) { c.Query.MaxFollows = 2 })
	ctx := context.Background()
	c := s.http(t, client.WithAPIKey(s.key))
	args := map[string]any{"expr": "traffic", "follow": true, "interval": 1}
	open := func(c *client.Client) (stop func(), err error) {
		next, stop := iter.Pull2(c.Stream(ctx, "query", args))
		if _, err := next2(next); err != nil {
			stop()
			return nil, err
		}
		return stop, nil
	}
	stop1, err := open(c)
	if err != nil {
		t.Fatal(err)
	}
	stop2, err := open(c)
	if err != nil {
		t.Fatal(err)
	}
	defer stop2()
	session, err := client.Call(ctx, s.http(t), authapi.Login, authapi.LoginArgs{User: "admin", Password: "correct horse battery staple"})
	if err != nil {
		t.Fatal(err)
	}
	for _, other := range []*client.Client{c, s.http(t, client.WithSession(session))} {
		_, err = open(other)
		var e *apierr.Error
		if code(err) != "LIMIT-REACHED" || !errors.As(err, &e) || e.Attr("limit") != 2.0 || e.Attr("name") != "follow streams" {
			t.Fatalf("a third followed query: %v, want LIMIT-REACHED", err)
		}
	}
	// A query that does not follow is not counted.
	if err := c.Call(ctx, "query", map[string]any{"expr": "traffic"}, nil); err != nil {
		t.Fatal(err)
	}
	stop1()
	testutil.Until(t, testutil.Wait, "a followed query after ending one", func() error {
		stop3, err := open(c)
		if err == nil {
			stop3()
			return nil
		}
		if code(err) != "LIMIT-REACHED" {
			t.Fatalf("after ending one: %v", err)
		}
		return err
	})
}

func next2[K, V any](next func() (K, V, bool)) (K, V) {
	k, v, _ := next()
	return k, v
}
