package app_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// TestComponentLayers checks the data service's import direction (docs/architecture.md): the
// components (inlet, query, console) import neither each other nor the assembly (app), each
// getting what it uses from another through its Dependencies; alerts, manage and traffic no
// longer import one another for helpers (those live in wire, which imports no component); and
// no component nor app imports the framework's transport, but the console for the rate-limit
// interceptor alone.
func TestComponentLayers(t *testing.T) {
	t.Parallel()
	const module = "github.com/fnapi/fnapi/examples/dataservice/"
	const transport = "github.com/fnapi/fnapi/transport"
	components := []string{"inlet", "query", "console", "app"}
	for _, c := range []struct {
		pkg    string
		not    []string // packages of the module it must not depend on
		direct []string // packages it must not import itself
	}{
		{"inlet", []string{"query", "console", "app", "alerts", "traffic"}, []string{transport}},
		{"query", []string{"inlet", "console", "app", "alerts", "manage"}, []string{transport}},
		{"console", []string{"inlet", "query", "app", "alerts", "traffic"}, nil},
		{"alerts", append(components, "manage", "traffic"), []string{transport}},
		{"manage", append(components, "traffic", "alerts"), []string{transport}},
		{"wire", append(components, "manage", "traffic", "alerts"), []string{transport}},
		{"app", nil, []string{transport}},
	} {
		deps := testenv.Deps(t, module+c.pkg)
		for _, n := range c.not {
			if slices.Contains(deps, module+n) {
				t.Errorf("%s depends on %s", c.pkg, n)
			}
		}
		imports := directImports(t, module+c.pkg)
		for _, n := range c.direct {
			if slices.Contains(imports, n) {
				t.Errorf("%s imports %s", c.pkg, n)
			}
		}
	}
}

// directImports lists what pkg imports itself (not its tests).
func directImports(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{join .Imports " "}}`, pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	return strings.Fields(string(out))
}
