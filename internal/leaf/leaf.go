// Package leaf checks, in tests, that a package of declarations stays a leaf that a Go client
// imports without pulling a server or a driver.
package leaf

import (
	"os/exec"
	"strings"
	"testing"
)

// Check fails t when the package in the current directory depends on a package outside the
// standard library that is not in allowed. It skips when the go command is not in PATH.
func Check(t testing.TB, allowed ...string) {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command in PATH")
	}
	out, err := exec.Command(gobin, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	want := map[string]bool{}
	for _, p := range allowed {
		want[p] = true
	}
	for _, p := range strings.Fields(string(out)) {
		if !want[p] {
			t.Errorf("imports %s; allowed: %v and the standard library", p, allowed)
		}
	}
}
