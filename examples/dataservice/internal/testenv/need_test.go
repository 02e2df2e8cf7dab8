package testenv_test

import (
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
