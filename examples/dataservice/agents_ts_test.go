package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// mcpclientDir holds the official MCP TypeScript SDK, pinned, and the program that uses it.
const mcpclientDir = "testdata/mcpclient"

// TestTypeScriptMCPClient runs testdata/mcpclient/main.mjs with node against the service's
// /api/mcp: the official MCP TypeScript SDK lists the tools, calls query (its structured
// content checked by the SDK against the tool's outputSchema), gets a QUERY-SYNTAX tool error,
// creates a dashboard and reads the query language's resource, with an API key as Bearer.
func TestTypeScriptMCPClient(t *testing.T) {
	// Serial: t.Setenv sets the environment the service's process inherits.
	node := testenv.Need(t, "node", "nodejs")
	if _, err := os.Stat(filepath.Join(mcpclientDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		msg := "npm ci --prefix examples/dataservice/" + mcpclientDir + " installs the MCP TypeScript SDK for this test"
		if testenv.CI() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	const password = "mcp client admin password"
	t.Setenv("SVC_ADMIN_PASSWORD", password)
	data := t.TempDir()
	p := startService(t, "-addr", "127.0.0.1:0", "-data", data)
	ctx := t.Context()
	anon, err := client.New(p.url+"/api", client.WithHTTPClient(insecure()))
	if err != nil {
		t.Fatal(err)
	}
	var session, key string
	if err := anon.Call(ctx, "login", map[string]string{"user": "admin", "password": password}, &session); err != nil {
		t.Fatal(err)
	}
	admin, err := client.New(p.url+"/api", client.WithHTTPClient(insecure()), client.WithSession(session))
	if err != nil {
		t.Fatal(err)
	}
	if err := admin.Call(ctx, "create-api-key", map[string]string{"name": "agent"}, &key); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, node, "main.mjs")
	cmd.Dir = mcpclientDir
	cmd.Env = append(os.Environ(),
		"DATASERVICE_URL="+p.url+"/api",
		"DATASERVICE_KEY="+key,
		"NODE_EXTRA_CA_CERTS="+filepath.Join(data, "tls", "cert.pem"), // the service's self-signed certificate
	)
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("node main.mjs: %v\n%s", err, out)
	}
}
