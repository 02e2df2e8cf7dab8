package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// tsclientDir holds the pinned npm packages of the TypeScript client check and its program.
const tsclientDir = "testdata/tsclient"

// TestGeneratedTypeScriptClient generates a TypeScript client from the live service's OpenAPI
// document with openapi-typescript, type-checks testdata/tsclient/main.ts against it with tsc,
// and runs the program with node against the service: login, create-api-key,
// create-dashboard, get-dashboard, ingest, query and stream/query through the generated types.
func TestGeneratedTypeScriptClient(t *testing.T) {
	// Serial: t.Setenv sets the environment the service's process inherits.
	node := needNodePackages(t, "openapi-typescript", "openapi-fetch", "typescript")
	const password = "typescript admin password"
	t.Setenv("SVC_ADMIN_PASSWORD", password)
	data := t.TempDir()
	p := startService(t, "-addr", "127.0.0.1:0", "-data", data)

	work := t.TempDir()
	writeOpenAPI(t, p.url+"/api/1.1/doc", filepath.Join(work, "openapi.json"))
	modules, err := filepath.Abs(filepath.Join(tsclientDir, "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(modules, filepath.Join(work, "node_modules")); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"main.ts", "tsconfig.json", "package.json"} {
		b, err := os.ReadFile(filepath.Join(tsclientDir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	run := func(env []string, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), node, args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("node %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run(nil, "node_modules/openapi-typescript/bin/cli.js", "openapi.json", "-o", "api.d.ts")
	run(nil, "node_modules/typescript/bin/tsc", "-p", ".")
	out := run([]string{
		"DATASERVICE_URL=" + p.url + "/api/1.1",
		"NODE_EXTRA_CA_CERTS=" + filepath.Join(data, "tls", "cert.pem"), // the service's self-signed certificate
	}, "out/main.js")
	if strings.TrimSpace(out) != "ok" {
		t.Fatalf("the program printed %q, want ok", out)
	}
}

// needNodePackages returns the path of node once it and the named packages of tsclientDir are
// installed; otherwise the test skips, or fails under CI=true, where .ci/install-extras runs
// npm ci --prefix examples/dataservice/testdata/tsclient.
func needNodePackages(t *testing.T, pkgs ...string) string {
	t.Helper()
	node := testenv.Need(t, "node", "nodejs")
	for _, p := range pkgs {
		if _, err := os.Stat(filepath.Join(tsclientDir, "node_modules", p, "package.json")); err != nil {
			msg := "npm ci --prefix examples/dataservice/" + tsclientDir + " installs " + p + " for this test"
			if testenv.CI() {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
	return node
}

// writeOpenAPI saves the OpenAPI document that the doc function at docURL answers.
func writeOpenAPI(t *testing.T, docURL, path string) {
	t.Helper()
	res, err := insecure().Get(docURL + `?format="openapi"`)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var msg struct {
		Type   string          `json:"type"`
		Result json.RawMessage `json:"result"`
	}
	if err := json.NewDecoder(res.Body).Decode(&msg); err != nil || msg.Type != "result" {
		t.Fatalf("doc: %v %+v", err, msg)
	}
	if err := os.WriteFile(path, msg.Result, 0o600); err != nil {
		t.Fatal(err)
	}
}
