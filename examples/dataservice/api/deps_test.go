package api_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDomainImportsNoWire checks the layering of issue 29: the query language (pvql), the
// collector (collect) and the state stores (state) have their own types and do not import
// package api, the wire contract; the functions that serve them convert at their boundary.
func TestDomainImportsNoWire(t *testing.T) {
	t.Parallel()
	const module = "github.com/fnapi/fnapi/examples/dataservice/"
	out, err := exec.Command("go", "list", "-deps", module+"pvql", module+"collect", module+"state").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps listed %d packages: %s", len(deps), out)
	}
	for _, dep := range deps {
		if dep == module+"api" {
			t.Errorf("pvql, collect or state depends on %s", dep)
		}
	}
}
