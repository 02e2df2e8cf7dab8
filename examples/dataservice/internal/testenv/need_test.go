package testenv_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

func TestNeedFindsShell(t *testing.T) {
	if p := testenv.Need(t, "sh", "dash"); p == "" {
		t.Fatal("Need returned no path for sh")
	}
}

func TestFreePortsDiffer(t *testing.T) {
	if a, b := testenv.FreePort(t), testenv.FreeUDPPort(t); a <= 0 || b <= 0 {
		t.Fatalf("ports %d, %d", a, b)
	}
}

func TestFreePortsBelowEphemeral(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		t.Skipf("no ephemeral range to compare with: %v", err)
	}
	low, err := strconv.Atoi(strings.Fields(string(raw))[0])
	if err != nil || low <= 10000 {
		t.Skipf("ephemeral range %q leaves no room below it", raw)
	}
	for range 20 {
		if p := testenv.FreePort(t); p < 10000 || p >= low {
			t.Fatalf("FreePort gave %d, want one in [10000, %d): below the ports outgoing connections take", p, low)
		}
		if p := testenv.FreeUDPPort(t); p < 10000 || p >= low {
			t.Fatalf("FreeUDPPort gave %d, want one in [10000, %d)", p, low)
		}
	}
}
