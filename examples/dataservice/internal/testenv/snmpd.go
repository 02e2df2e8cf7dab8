package testenv

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/internal/testutil"
)

// SNMPD is Debian's net-snmp agent, started by a test on a free UDP port of 127.0.0.1 with a
// configuration of its own: the v2c community SNMPCommunity, the v3 user SNMPUser (SHA and
// AES with SNMPAuthPassword and SNMPPrivPassword), the sysName SNMPSysName, and the alias
// SNMPAlias for interface 1 (the host's loopback, lo: IF-MIB reads the real interfaces).
type SNMPD struct {
	Port int
	cmd  *exec.Cmd
}

// The configuration StartSNMPD gives the agent.
const (
	SNMPCommunity    = "s3cret-community"
	SNMPUser         = "fnapi"
	SNMPAuthPassword = "auth-pass-123"
	SNMPPrivPassword = "priv-pass-456"
	SNMPSysName      = "edge-router-1"
	SNMPAlias        = "uplink to the lab"
)

// StartSNMPD starts snmpd (stopped at the end of the test; its log shown when the test
// failed). Without snmpd the test skips, or fails under CI.
func StartSNMPD(t testing.TB) *SNMPD {
	t.Helper()
	bin := Need(t, "snmpd", "snmpd")
	dir := t.TempDir()
	port := FreeUDPPort(t)
	conf := filepath.Join(dir, "snmpd.conf")
	cfg := fmt.Sprintf(`agentAddress udp:127.0.0.1:%d
rocommunity %s 127.0.0.1
createUser %s SHA "%s" AES "%s"
rouser %s priv
sysName %s
override .1.3.6.1.2.1.31.1.1.1.18.1 octet_str "%s"
`, port, SNMPCommunity, SNMPUser, SNMPAuthPassword, SNMPPrivPassword, SNMPUser, SNMPSysName, SNMPAlias)
	if err := os.WriteFile(conf, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "snmpd.log")
	s := &SNMPD{Port: port}
	s.cmd = exec.Command(bin, "-f", "-C", "-c", conf, "-Lf", log, "-p", filepath.Join(dir, "snmpd.pid"),
		"--persistentDir="+dir, "--noPersistentLoad=1", "--noPersistentSave=1")
	s.cmd.Env = append(os.Environ(), "SNMP_PERSISTENT_DIR="+dir, "MIBS=")
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(log)
			t.Logf("snmpd log:\n%s", b)
		}
	})
	// Ready once it logs its version, after opening its port.
	testutil.Until(t, 30*time.Second, "snmpd to start", func() error {
		if b, _ := os.ReadFile(log); !strings.Contains(string(b), "NET-SNMP version") {
			return errors.New("no version in its log yet")
		}
		return nil
	})
	return s
}

// Stop stops the agent (again is a no-op).
func (s *SNMPD) Stop() {
	if s.cmd.Process != nil && s.cmd.ProcessState == nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
	}
}
