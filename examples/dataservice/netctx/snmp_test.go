package netctx_test

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/netctx"
)

// snmpd is Debian's net-snmp agent, started on a free port with a configuration naming the
// device and the alias of interface 1 (the host's loopback: IF-MIB reads the real interfaces).
type snmpd struct {
	port int
	cmd  *exec.Cmd
	args []string
}

const (
	community  = "s3cret-community"
	v3User     = "fnapi"
	v3AuthPass = "auth-pass-123"
	v3PrivPass = "priv-pass-456"
)

func startSNMPD(t *testing.T) *snmpd {
	t.Helper()
	bin := testenv.Need(t, "snmpd", "snmpd")
	dir := t.TempDir()
	port := testenv.FreeUDPPort(t)
	conf := filepath.Join(dir, "snmpd.conf")
	cfg := fmt.Sprintf(`agentAddress udp:127.0.0.1:%d
rocommunity %s 127.0.0.1
createUser %s SHA "%s" AES "%s"
rouser %s priv
sysName edge-router-1
override .1.3.6.1.2.1.31.1.1.1.18.1 octet_str "uplink to the lab"
`, port, community, v3User, v3AuthPass, v3PrivPass, v3User)
	if err := os.WriteFile(conf, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &snmpd{port: port, args: []string{"-f", "-C", "-c", conf, "-Lf", filepath.Join(dir, "snmpd.log"),
		"-p", filepath.Join(dir, "snmpd.pid"), "--persistentDir=" + dir, "--noPersistentLoad=1", "--noPersistentSave=1"}}
	s.cmd = exec.Command(bin, s.args...)
	s.cmd.Env = append(os.Environ(), "SNMP_PERSISTENT_DIR="+dir, "MIBS=")
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.stop)
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(dir, "snmpd.log"))
			t.Logf("snmpd log:\n%s", b)
		}
	})
	return s
}

func (s *snmpd) stop() {
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
	}
}

// eventually polls cond until it holds, failing the test after a minute.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestPollSNMPD(t *testing.T) {
	t.Parallel()
	s := startSNMPD(t)
	lo := netip.MustParseAddr("127.0.0.1")
	for _, target := range []netctx.Target{
		{Address: lo, Port: uint16(s.port), Version: "2c", Community: community},
		{Address: lo, Port: uint16(s.port), Version: "3", User: v3User, AuthProtocol: "sha", AuthPassword: v3AuthPass,
			PrivProtocol: "aes", PrivPassword: v3PrivPass},
	} {
		t.Run("v"+target.Version, func(t *testing.T) {
			var d netctx.Device
			var err error
			eventually(t, "snmpd to answer", func() bool {
				d, err = netctx.Poll(context.Background(), target)
				return err == nil
			})
			if d.Name != "edge-router-1" {
				t.Errorf("sysName = %q, want edge-router-1", d.Name)
			}
			i := d.Interfaces[1]
			if i.Name != "lo" || i.Alias != "uplink to the lab" {
				t.Errorf("interface 1 = %+v, want lo named \"uplink to the lab\"", i)
			}
		})
	}
	t.Run("wrong community", func(t *testing.T) {
		_, err := netctx.Poll(context.Background(), netctx.Target{Address: lo, Port: uint16(s.port), Version: "2c", Community: "nope"})
		if err == nil {
			t.Fatal("a wrong community was answered")
		}
		if strings.Contains(err.Error(), "nope") {
			t.Errorf("the error shows the community: %v", err)
		}
	})
}

// TestPollerKeepsNamesWhenStopped: the names last polled stay in use when the agent stops,
// and the status says the poll failed; static names fill what SNMP does not name.
func TestPollerKeepsNamesWhenStopped(t *testing.T) {
	t.Parallel()
	s := startSNMPD(t)
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
	p.SetTargets([]netctx.Target{{Address: lo, Port: uint16(s.port), Version: "2c", Community: community}}, 0)
	eventually(t, "the poll", func() bool { return names.Exporter(lo) == "edge-router-1" })
	if got := names.Interface(lo, 1); got.Name != "lo" || got.Alias != "uplink to the lab" || got.Speed == 0 {
		t.Errorf("interface 1 = %+v, want lo, its alias and its speed as polled", got)
	}
	if got := names.Interface(lo, 7); got.Name != "et-0/0/7" {
		t.Errorf("interface 7 = %+v, want the static name", got)
	}
	s.stop()
	eventually(t, "a failed poll in the status", func() bool {
		st := p.Status()
		return len(st) == 1 && st[0].Error != "" && !st[0].OK.IsZero()
	})
	if got := names.Exporter(lo); got != "edge-router-1" {
		t.Errorf("after snmpd stopped the name is %q, want the last polled", got)
	}
}
