package alerts_test

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/alerts"
	"github.com/fnapi/fnapi/examples/dataservice/bgp"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/internal/testutil"
)

// TestMitigationGoBGPD floods a protected address while the evaluator runs as the service
// runs it, announcing through the BGP speaker to Debian's gobgpd, the router: gobgpd receives
// the blackhole route (with the next hop blackhole_nexthop names) and the flowspec rule, and
// loses them after the flood; a flood to an address outside mitigation_zones never reaches it.
// It logs the time from the flood's records stored to the route at gobgpd (issue 43: at most
// 5 s with interval 10 s), read from gobgp's monitor of its RIB, as each route arrives.
func TestMitigationGoBGPD(t *testing.T) {
	t.Parallel()
	sp, port := testenv.StartSpeaker(t, bgp.Config{}, nil, "127.0.0.4")
	g := testenv.StartGoBGPD(t, "127.0.0.4", 64600, port, testenv.SpeakerAS)
	testutil.Until(t, 30*time.Second, "gobgpd's session", g.Established)
	rib := g.Monitor("ipv4-flowspec") // its unicast routes too

	m := newMitEnvOn(t, alerts.Options{Announcer: sp, MitigationHold: time.Second}, true)
	m.mu.Lock()
	m.set.NextHops = []netip.Addr{netip.MustParseAddr("192.0.2.66")}
	m.mu.Unlock()
	r := m.rule(t, state.AlertRule{Name: "flood", Owner: "admin", Query: floodRule, Interval: 10 * time.Second,
		Notify: bgpNotify(t, alerts.Blackhole, alerts.Flowspec)})
	// Stamped 45 s ago, the flood leaves the rule's 60 s window 15 s from now: it resolves.
	// Both floods are stored before the rules run, so that one evaluation sees both.
	at := time.Now().Unix() - 45
	m.flood(t, at, "203.0.113.9") // Transit: outside mitigation_zones
	m.flood(t, at, "198.51.100.7")
	stored := time.Now()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { m.ev.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	got := await(t, rib, []string{"[ROUTE] 198.51.100.7/32 via 192.0.2.66", "blackhole"},
		[]string{"[ROUTE] [destination: 198.51.100.7/32][protocol: ==udp][destination-port: ==53]", "discard"})
	t.Logf("from the flood's records stored to the route at gobgpd: blackhole %v, flowspec %v",
		got[0].Sub(stored).Round(time.Millisecond), got[1].Sub(stored).Round(time.Millisecond))
	await(t, rib, []string{"[DELROUTE] 198.51.100.7/32"}, []string{"[DELROUTE] [destination: 198.51.100.7/32]"})
	testutil.Until(t, 10*time.Second, "the withdrawals in the history", func() error {
		if es := m.events(t, r.ID); len(es) != 6 {
			return fmt.Errorf("history %q", es)
		}
		return nil
	})
	for _, fam := range []string{"ipv4", "ipv4-flowspec"} {
		if out := g.CLI("global", "rib", "-a", fam); strings.Contains(out, "198.51.100.7") || strings.Contains(out, "203.0.113.9") {
			t.Errorf("gobgpd's %s RIB after the flood:\n%s", fam, out)
		}
	}
	check(t, "history", m.events(t, r.ID),
		"announced blackhole 198.51.100.7/32", "announced flowspec 198.51.100.7/32",
		"refused blackhole 203.0.113.9/32 (the address is outside mitigation_zones (its zone: Transit))",
		"refused flowspec 203.0.113.9/32 (the address is outside mitigation_zones (its zone: Transit))",
		"withdrawn blackhole 198.51.100.7/32 (resolved)", "withdrawn flowspec 198.51.100.7/32 (resolved)")
}

// await waits until each of want (substrings of one line) is in a line of a monitor, and
// returns when each first was; a line about 203.0.113.9 (outside mitigation_zones) fails the
// test.
func await(t *testing.T, lines <-chan testenv.RIBLine, want ...[]string) []time.Time {
	t.Helper()
	at := make([]time.Time, len(want))
	timeout := time.After(90 * time.Second)
	for left := len(want); left > 0; {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("gobgp's monitor ended before %q", want)
			}
			if strings.Contains(l.Text, "203.0.113.9") {
				t.Errorf("gobgpd received a route outside mitigation_zones: %s", l.Text)
			}
			for i, w := range want {
				if at[i].IsZero() && all(l.Text, w) {
					at[i] = l.At
					left--
				}
			}
		case <-timeout:
			t.Fatalf("gobgpd never showed all of %q (seen at %v)", want, at)
		}
	}
	return at
}

func all(s string, subs []string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}
