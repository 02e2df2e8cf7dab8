package main

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"go.uber.org/zap"
)

// conformanceDir holds the conformance suite and the Node 22 it needs, which
// .ci/install-extras installs with npm ci --prefix examples/mcpeverything/testdata/conformance.
const conformanceDir = "testdata/conformance"

// passing are the scenarios of the suite (0.2.0-alpha.12) that pass, per revision, each run
// as --requirements of the revision asks. Every one must keep passing: a scenario that fails
// or runs no check fails the test. A scenario that starts passing is logged, to be added.
var passing = map[string][]string{
	"2025-11-25": {
		"server-initialize", "logging-set-level", "ping", "completion-complete",
		"tools-list", "tools-call-simple-text", "tools-call-image", "tools-call-audio",
		"tools-call-embedded-resource", "tools-call-mixed-content", "tools-call-with-logging",
		"tools-call-error", "tools-call-with-progress", "tools-call-sampling",
		"tools-call-elicitation", "elicitation-sep1034-defaults", "server-sse-multiple-streams",
		"elicitation-sep1330-enums", "resources-list", "resources-read-text",
		"resources-read-binary", "resources-templates-read", "resources-subscribe",
		"resources-unsubscribe", "prompts-list", "prompts-get-simple", "prompts-get-with-args",
		"prompts-get-embedded-resource", "prompts-get-with-image", "dns-rebinding-protection",
		"server-session-lifecycle", "json-schema-2020-12",
	},
	"2026-07-28": {
		"server-stateless", "completion-complete", "tools-list", "tools-call-simple-text",
		"tools-call-image", "tools-call-audio", "tools-call-embedded-resource",
		"tools-call-mixed-content", "tools-call-error", "tools-call-with-progress",
		"server-sse-multiple-streams", "resources-list", "resources-read-text",
		"resources-read-binary", "resources-templates-read", "sep-2164-resource-not-found",
		"prompts-list", "prompts-get-simple", "prompts-get-with-args",
		"prompts-get-embedded-resource", "prompts-get-with-image", "dns-rebinding-protection",
		"caching", "http-header-validation", "http-custom-header-server-validation",
		"json-schema-2020-12",
		"input-required-result-basic-elicitation", "input-required-result-basic-sampling",
		"input-required-result-basic-list-roots", "input-required-result-request-state",
		"input-required-result-multiple-input-requests", "input-required-result-multi-round",
		"input-required-result-missing-input-response", "input-required-result-non-tool-request",
		"input-required-result-result-type", "input-required-result-unsupported-methods",
		"input-required-result-tampered-state", "input-required-result-capability-check",
		"input-required-result-ignore-extra-params", "input-required-result-validate-input",
		// the tasks extension, run with the revision though not scored
		"tasks-capability-negotiation", "tasks-wire-fields", "tasks-request-state-removal",
		"tasks-request-headers", "tasks-lifecycle", "tasks-required-task-error",
		"tasks-mrtr-input", "tasks-dispatch-and-envelope", "tasks-mrtr-composition",
	},
}

// TestConformance runs the server scenarios of @modelcontextprotocol/conformance that each
// revision requires against the example, served as its main serves it: plain HTTP on
// loopback, MCP at /mcp.
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
	for revision, want := range passing {
		t.Run(revision, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, suite, "server", "--url", srv.URL+"/mcp",
				"--requirements", revision, "-o", t.TempDir())
			out, _ := cmd.CombinedOutput() // exits 1 while any scenario fails
			got := scenarios(out)
			if len(got) == 0 {
				t.Fatalf("conformance suite printed no summary:\n%s", out)
			}
			for _, name := range want {
				r, ok := got[name]
				if !ok || r.failed > 0 || r.passed == 0 {
					t.Errorf("scenario %s: %d passed, %d failed (ran: %t); it passed before", name, r.passed, r.failed, ok)
				}
				delete(got, name)
			}
			for name, r := range got {
				if r.failed == 0 && r.passed > 0 {
					t.Logf("scenario %s passes now: add it to passing", name)
				}
			}
			if t.Failed() {
				t.Logf("conformance suite output:\n%s", out)
			}
		})
	}
}

// result is one scenario's line of the suite's summary.
type result struct{ passed, failed int }

// scenarios reads the suite's summary lines, "✓ name: 3 passed, 0 failed".
func scenarios(out []byte) map[string]result {
	m := map[string]result{}
	re := regexp.MustCompile(`(?m)^[✓✗] (\S+): (\d+) passed, (\d+) failed$`)
	for _, l := range re.FindAllSubmatch(out, -1) {
		p, _ := strconv.Atoi(string(l[2]))
		f, _ := strconv.Atoi(string(l[3]))
		m[string(l[1])] = result{p, f}
	}
	return m
}
