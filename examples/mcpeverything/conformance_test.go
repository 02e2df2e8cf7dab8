package main

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"go.uber.org/zap"
)

// conformanceDir holds the conformance suite and the Node 22 it needs, which
// .ci/install-extras installs with npm ci --prefix examples/mcpeverything/testdata/conformance.
const conformanceDir = "testdata/conformance"

// TestConformance runs the active server suite of @modelcontextprotocol/conformance against
// the example, served as its main serves it: plain HTTP on loopback, MCP at /mcp. Every
// scenario must pass.
func TestConformance(t *testing.T) {
	t.Parallel()
	node := filepath.Join(conformanceDir, "node_modules", "node", "bin", "node")
	suite := filepath.Join(conformanceDir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	for _, p := range []string{node, suite} {
		if _, err := os.Stat(p); err != nil {
			msg := "npm ci --prefix examples/mcpeverything/" + conformanceDir + " installs the conformance suite and Node 22 for this test"
			if os.Getenv("CI") == "true" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
	h, err := handler(zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, suite, "server", "--url", srv.URL+"/mcp", "-o", t.TempDir())
	out, err := cmd.CombinedOutput()
	m := regexp.MustCompile(`Total: (\d+) passed, (\d+) failed`).FindSubmatch(out)
	if err != nil || m == nil || string(m[2]) != "0" {
		t.Fatalf("conformance suite: %v\n%s", err, out)
	}
	t.Logf("conformance suite: %s", m[0])
}
