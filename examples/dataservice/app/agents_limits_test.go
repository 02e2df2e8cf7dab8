package app_test

import (
	"strings"
	"testing"

	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAgentRequestsCounted checks that an agent's protocol requests count against its user's
// rate limit as calls do: pings of a read-only key stop with HTTP 429 (RATE-LIMITED) past the
// burst, while another user is not affected.
func TestAgentRequestsCounted(t *testing.T) {
	t.Parallel()
	// Bursts of 4: the pings exhaust the bucket unless each took over half a second (a rate of
	// 10 refilled it as fast as a loaded machine pinged); initialize and ping of the other
	// user's agent take 3 of its own.
	const rate = 2
	s := start(t, func(c *app.Config) { c.Console.RateLimit = rate })
	cs, err := s.agent(t, s.readOnlyKey(t)) // initialize and notifications/initialized: 2
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	var pings int
	for ; pings < 10*rate; pings++ {
		if err = cs.Ping(ctx, nil); err != nil {
			break
		}
	}
	if err == nil || !strings.Contains(err.Error(), "Too Many Requests") || pings > 2*rate {
		t.Fatalf("%d pings, then %v: want at most a burst of %d, then 429", pings, err, 2*rate)
	}
	admin, err := s.agent(t, s.key)
	if err != nil {
		t.Fatal(err)
	}
	if err := admin.Ping(ctx, nil); err != nil {
		t.Errorf("another user's agent: %v", err)
	}
}

// TestAgentSessionsPerUser checks that a user's agents hold at most 16 sessions: a key that
// connects again and again ends its own least recently used session, never another user's;
// and that listing tools (probes of every function) writes nothing to the audit trail.
func TestAgentSessionsPerUser(t *testing.T) {
	t.Parallel()
	s := start(t)
	ctx := t.Context()
	admin, err := s.agent(t, s.key)
	if err != nil {
		t.Fatal(err)
	}
	key := s.readOnlyKey(t)
	var agents []*mcp.ClientSession
	for range 17 {
		cs, err := s.agent(t, key)
		if err != nil {
			t.Fatal(err)
		}
		agents = append(agents, cs)
	}
	if err := agents[0].Ping(ctx, nil); err == nil {
		t.Error("a user's 17th session did not end its least recently used one")
	}
	for _, cs := range append(agents[1:], admin) {
		if err := cs.Ping(ctx, nil); err != nil {
			t.Errorf("a session within the bound: %v", err)
		}
	}
	events := func() int {
		es, err := client.Call(ctx, s.http(t, client.WithAPIKey(s.key)), api.ListAudit, api.ListAuditArgs{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		return len(es)
	}
	before := events()
	for _, err := range admin.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
	}
	if after := events(); after != before {
		t.Errorf("listing tools wrote %d audit events", after-before)
	}
}
