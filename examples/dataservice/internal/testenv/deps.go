package testenv

import (
	"os/exec"
	"strings"
	"testing"
)

// Deps lists what the packages (import paths) depend on, themselves included, as `go list
// -deps` does: the layering tests read it. It fails the test when go cannot list them.
func Deps(t testing.TB, pkgs ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list", "-deps"}, pkgs...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps listed %d packages: %s", len(deps), out)
	}
	return deps
}
