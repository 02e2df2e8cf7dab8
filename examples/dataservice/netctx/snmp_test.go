package netctx_test

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/netctx"
	"github.com/fnapi/fnapi/internal/testutil"
)

func TestPollSNMPD(t *testing.T) {
	t.Parallel()
	s := testenv.StartSNMPD(t)
	lo := netip.MustParseAddr("127.0.0.1")
	for _, target := range []netctx.Target{
		{Address: lo, Port: uint16(s.Port), Version: "2c", Community: testenv.SNMPCommunity},
		{Address: lo, Port: uint16(s.Port), Version: "3", User: testenv.SNMPUser, AuthProtocol: "sha", AuthPassword: testenv.SNMPAuthPassword,
			PrivProtocol: "aes", PrivPassword: testenv.SNMPPrivPassword},
	} {
		t.Run("v"+target.Version, func(t *testing.T) {
			var d netctx.Device
			testutil.Until(t, time.Minute, "snmpd to answer", func() error {
				var err error
				d, err = netctx.Poll(context.Background(), target)
				return err
			})
			if d.Name != testenv.SNMPSysName {
				t.Errorf("sysName = %q, want edge-router-1", d.Name)
			}
			i := d.Interfaces[1]
			if i.Name != "lo" || i.Alias != testenv.SNMPAlias {
				t.Errorf("interface 1 = %+v, want lo named \"uplink to the lab\"", i)
			}
		})
	}
	t.Run("wrong community", func(t *testing.T) {
		_, err := netctx.Poll(context.Background(), netctx.Target{Address: lo, Port: uint16(s.Port), Version: "2c", Community: "nope"})
		if err == nil {
			t.Fatal("a wrong community was answered")
		}
		if strings.Contains(err.Error(), "nope") {
			t.Errorf("the error shows the community: %v", err)
		}
	})
}

// TestPollerKeepsNamesWhenStopped: the names last polled stay in use when the agent stops,
// and the status says the poll failed; static names fill what SNMP does not name, and all
// of them once the exporter is no longer polled.
func TestPollerKeepsNamesWhenStopped(t *testing.T) {
	t.Parallel()
	s := testenv.StartSNMPD(t)
	lo := netip.MustParseAddr("127.0.0.1")
	names := &netctx.Names{}
	names.SetStatic([]netctx.Device{{Address: lo, Name: "static-name",
		Interfaces: map[uint32]netctx.Interface{1: {Name: "static-lo", Alias: "static alias"}, 7: {Name: "et-0/0/7", Alias: "static"}}}})
	p := netctx.NewPoller(names)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { p.Run(ctx, 200*time.Millisecond); close(done) }()
	defer func() { cancel(); <-done }()
	p.SetTargets([]netctx.Target{{Address: lo, Port: uint16(s.Port), Version: "2c", Community: testenv.SNMPCommunity}}, 0)
	testutil.Eventually(t, "the poll", func() bool { return names.Exporter(lo) == testenv.SNMPSysName })
	if got := names.Interface(lo, 1); got.Name != "lo" || got.Alias != testenv.SNMPAlias || got.Speed == 0 {
		t.Errorf("interface 1 = %+v, want lo, its alias and its speed as polled", got)
	}
	if got := names.Interface(lo, 7); got.Name != "et-0/0/7" {
		t.Errorf("interface 7 = %+v, want the static name", got)
	}
	s.Stop()
	testutil.Eventually(t, "a failed poll in the status", func() bool {
		st := p.Status()
		return len(st) == 1 && st[0].Error != "" && !st[0].OK.IsZero()
	})
	if got := names.Exporter(lo); got != testenv.SNMPSysName {
		t.Errorf("after snmpd stopped the name is %q, want the last polled", got)
	}
	// An exporter removed from the targets keeps no polled name: its static ones apply.
	p.SetTargets(nil, 0)
	if got := names.Exporter(lo); got != "static-name" {
		t.Errorf("after the exporter was removed its name is %q, want the static one", got)
	}
}
