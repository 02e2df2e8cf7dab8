package api_test

import (
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// TestDomainImportsNoWire checks the layering of issue 29: the query language (pvql), the
// collector (collect) and the state stores (state) have their own types and do not import
// package api, the wire contract; the functions that serve them convert at their boundary.
func TestDomainImportsNoWire(t *testing.T) {
	t.Parallel()
	const module = "github.com/fnapi/fnapi/examples/dataservice/"
	for _, dep := range testenv.Deps(t, module+"pvql", module+"collect", module+"state") {
		if dep == module+"api" {
			t.Errorf("pvql, collect or state depends on %s", dep)
		}
	}
}
