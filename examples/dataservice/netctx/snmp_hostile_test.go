package netctx_test

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/netctx"
	"github.com/fnapi/fnapi/internal/testutil"
)

// The OIDs a poll reads, as the agents answer them.
const (
	sysName = testenv.OIDSysName
	ifName  = testenv.OIDIfName
)

// clean reports why s is not a clean name of at most max bytes, or "".
func clean(s string, max int) string {
	switch {
	case len(s) > max:
		return "too long"
	case !utf8.ValidString(s):
		return "not UTF-8"
	case strings.TrimSpace(s) != s:
		return "spaces at its ends"
	}
	for _, r := range s {
		if unicode.IsControl(r) || r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 || r == 0x200E || r == 0x200F {
			return "a control or bidirectional character"
		}
	}
	return ""
}

// TestPollHostileValues: every name a device answers comes out valid UTF-8, printable and
// bounded (255 bytes for names, 1 KiB for aliases), cut at a character's boundary.
func TestPollHostileValues(t *testing.T) {
	t.Parallel()
	agent := testenv.StartSNMPAgent(t, "127.0.0.1", "public", testenv.SNMPHostileValues(), false)
	d, err := netctx.Poll(context.Background(), netctx.Target{Address: netip.MustParseAddr("127.0.0.1"),
		Port: uint16(agent.Port), Version: "2c", Community: "public"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		what, got, want string
		max             int
	}{
		{"sysName", d.Name, "edge\uFFFD\uFFFD-1  State: resolved", netctx.MaxLabelLength},
		{"ifName 1", d.Interfaces[1].Name, strings.Repeat("é", 127), netctx.MaxLabelLength},
		{"ifAlias 1", d.Interfaces[1].Alias, strings.TrimSpace(strings.Repeat("uplink  ", 128)), netctx.MaxAliasLength},
		{"ifName 2", d.Interfaces[2].Name, "ge-0/0/2gnp.exe", netctx.MaxLabelLength},
		{"ifAlias 2", d.Interfaces[2].Alias, "to core\uFFFD", netctx.MaxAliasLength},
	} {
		if why := clean(tc.got, tc.max); why != "" || tc.got != tc.want {
			t.Errorf("%s = %.300q (%s), want %.300q", tc.what, tc.got, why, tc.want)
		}
	}
	if d.Interfaces[1].Speed != 10_000 {
		t.Errorf("interface 1's speed = %d, want 10000", d.Interfaces[1].Speed)
	}
}

// TestNamesClean: static names too are made clean where they are stored, so that what
// records take is clean whatever gave it.
func TestNamesClean(t *testing.T) {
	t.Parallel()
	lo := netip.MustParseAddr("127.0.0.1")
	names := &netctx.Names{}
	names.SetStatic([]netctx.Device{{Address: lo, Name: strings.Repeat("x", 300) + "\xff",
		Interfaces: map[uint32]netctx.Interface{3: {Name: "a\nb", Alias: strings.Repeat("y", 2000)}}}})
	if got := names.Exporter(lo); got != strings.Repeat("x", 255) {
		t.Errorf("exporter = %q, want 255 x", got)
	}
	if got := names.Interface(lo, 3); got.Name != "a b" || got.Alias != strings.Repeat("y", 1024) {
		t.Errorf("interface 3 = %+v", got)
	}
}

// TestPollerEndlessWalk: an exporter whose walk never ends fails its poll at the bound, the
// other exporter is polled on its own schedule meanwhile, and once the endless one is removed
// from the targets it receives no request more.
func TestPollerEndlessWalk(t *testing.T) {
	t.Parallel()
	endless := testenv.StartSNMPAgent(t, "127.0.0.2", "public", map[string]any{sysName: []byte("endless")}, true)
	good := testenv.StartSNMPAgent(t, "127.0.0.1", "public", map[string]any{sysName: []byte("good"), ifName + "1": []byte("ge-0/0/1")}, false)
	target := func(host string, a *testenv.SNMPAgent) netctx.Target {
		return netctx.Target{Address: netip.MustParseAddr(host), Port: uint16(a.Port), Version: "2c", Community: "public"}
	}
	p := netctx.NewPoller(&netctx.Names{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.Run(ctx, 20*time.Millisecond); close(done) }()
	defer func() { cancel(); <-done }()
	p.SetTargets([]netctx.Target{target("127.0.0.2", endless), target("127.0.0.1", good)}, 0)
	// A poll of the good agent is 4 requests (a GET and three walks of one answer each).
	polled := func(n int64) func() bool {
		from := good.Requests()
		return func() bool { return good.Requests() >= from+4*n }
	}
	testutil.Eventually(t, "10 polls of the good exporter while the endless walk goes on", polled(10))
	testutil.Eventually(t, "the endless walk to fail at the bound", func() bool {
		st := p.Status()
		return len(st) == 2 && strings.Contains(st[0].Error, "more than 100000 rows") && st[1].Error == ""
	})
	p.SetTargets([]netctx.Target{target("127.0.0.1", good)}, 0)
	if st := p.Status(); len(st) != 1 || st[0].Address != netip.MustParseAddr("127.0.0.1") {
		t.Errorf("status after the endless exporter was removed: %+v", st)
	}
	// A request sent before SetTargets returned may still wait in the agent's socket: count
	// from a poll of the other exporter later.
	testutil.Eventually(t, "a poll of the good exporter", polled(1))
	before := endless.Requests()
	testutil.Eventually(t, "3 more polls of the good exporter", polled(3))
	if n := endless.Requests() - before; n != 0 {
		t.Errorf("the exporter removed received %d requests", n)
	}
}
