package app_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/console"
)

// TestRateLimit checks the operator's call rate limit: Config.RateLimit (-rate-limit) sets the
// default, the rate_limit configuration key changes it while serving, and 0 turns it off.
func TestRateLimit(t *testing.T) {
	// Serial: a rate limit under test, which a loaded machine slows the calls under.
	s := start(t, func(c *app.Config) { c.Console.RateLimit = 3 })
	ctx := context.Background()
	c := s.http(t, client.WithAPIKey(s.key))
	// calls makes n calls and answers how many were admitted before the first refusal.
	calls := func(n int) int {
		t.Helper()
		for i := range n {
			err := c.Call(ctx, "get-api-version", nil, nil)
			if code(err) == apierr.RateLimited.Code() {
				return i
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		return n
	}
	var cfg map[string]any
	if err := c.Call(ctx, "get-config", nil, &cfg); err != nil || cfg["rate_limit"] != 3.0 {
		t.Fatalf("get-config: rate_limit %v (%v), want 3 from Config.RateLimit", cfg["rate_limit"], err)
	}
	if n := calls(20); n > 7 { // a burst of 6, and maybe one more token meanwhile
		t.Fatalf("%d calls admitted at 3 calls/s", n)
	}
	set := func(v any) {
		t.Helper()
		for {
			err := c.Call(ctx, "set-config", map[string]any{"values": map[string]any{"rate_limit": v}}, nil)
			if code(err) != apierr.RateLimited.Code() {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
		}
	}
	set(0)
	if n := calls(500); n != 500 {
		t.Fatalf("rate_limit 0: refused after %d calls", n)
	}
	set(1)
	if n := calls(20); n > 3 {
		t.Fatalf("%d calls admitted at 1 call/s", n)
	}
}

// TestKeyCreationRate checks that one user creates API keys in a burst of console.KeysBurst, then
// RATE-LIMITED, whatever the call rate limit, while another user still creates its own.
func TestKeyCreationRate(t *testing.T) {
	t.Parallel()
	s := start(t)
	ctx := t.Context()
	s.readOnlyKey(t) // rita's first key
	tok, err := client.Call(ctx, s.http(t), authapi.Login, authapi.LoginArgs{User: "rita", Password: "rita's password"})
	if err != nil {
		t.Fatal(err)
	}
	rita := s.http(t, client.WithSession(tok))
	for i := 2; i <= console.KeysBurst; i++ {
		if _, err := client.Call(ctx, rita, authapi.CreateAPIKey, authapi.KeyArgs{Name: fmt.Sprint("k", i)}); err != nil {
			t.Fatalf("key %d of a burst of %d: %v", i, console.KeysBurst, err)
		}
	}
	_, err = client.Call(ctx, rita, authapi.CreateAPIKey, authapi.KeyArgs{Name: "one too many"})
	if err == nil || apierr.From(err).Code() != apierr.RateLimited.Code() || apierr.From(err).Attr("retry_after") == nil {
		t.Fatalf("a key past the burst: %v", err)
	}
	if _, err := client.Call(ctx, rita, authapi.RevokeAPIKey, authapi.RevokeArgs{Name: "k2"}); err != nil {
		t.Errorf("revoking past the burst: %v", err)
	}
	tok, err = client.Call(ctx, s.http(t), authapi.Login, authapi.LoginArgs{User: "admin", Password: "correct horse battery staple"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Call(ctx, s.http(t, client.WithSession(tok)), authapi.CreateAPIKey, authapi.KeyArgs{Name: "another"}); err != nil {
		t.Errorf("another user's key: %v", err)
	}
}
