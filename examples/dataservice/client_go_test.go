package main

import (
	"bytes"
	"context"
	"flag"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/internal/goclient"
)

var update = flag.Bool("update", false, "rewrite internal/goclient from the live service's OpenAPI document")

const goclientDir = "internal/goclient"

// TestGeneratedGoClient checks that oapi-codegen (a tool of this module, pinned in go.mod)
// accepts the service's OpenAPI 3.1 document whole and that the client of every operation
// compiles, that internal/goclient is what it generates
// from the live document today, and that this generated client works against the service:
// login, create-api-key, create-dashboard, get-dashboard, ingest and query.
func TestGeneratedGoClient(t *testing.T) {
	// Serial: t.Setenv sets the environment the service's process inherits.
	if testing.Short() {
		t.Skip("runs the generator, which takes a while")
	}
	const password = "go client admin password"
	t.Setenv("SVC_ADMIN_PASSWORD", password)
	p := startService(t, "-addr", "127.0.0.1:0", "-data", t.TempDir())

	work := t.TempDir()
	doc := filepath.Join(work, "openapi.json")
	writeOpenAPI(t, p.url+"/api/1.1/doc", doc)
	generate := func(args ...string) {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), "go", append([]string{"tool", "oapi-codegen"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("oapi-codegen %v: %v\n%s", args, err, out)
		}
	}
	// The whole document, every operation, generates a client that compiles: built inside this
	// module (for its pinned runtime dependency) in a directory go ./... ignores.
	everything, err := os.MkdirTemp(goclientDir, "_everything")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(everything) })
	generate("-generate", "types,client", "-package", "everything", "-o", filepath.Join(everything, "client.go"), doc)
	if out, err := exec.CommandContext(t.Context(), "go", "build", "-o", os.DevNull, "./"+everything).CombinedOutput(); err != nil {
		t.Fatalf("the client of every operation does not compile: %v\n%s", err, out)
	}
	generate("-config", filepath.Join(goclientDir, "oapi.yaml"), "-o", filepath.Join(work, "client.gen.go"), doc)
	for _, f := range []struct{ got, committed string }{
		{doc, "openapi.json"},
		{filepath.Join(work, "client.gen.go"), "client.gen.go"},
	} {
		got, err := os.ReadFile(f.got)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(goclientDir, f.committed)
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if want, _ := os.ReadFile(path); !bytes.Equal(got, want) {
			t.Errorf("%s is not what the service and oapi-codegen give today: go test -run TestGeneratedGoClient -update .", path)
		}
	}

	ctx := context.Background()
	base := p.url + "/api/1.1"
	anon, err := goclient.NewClientWithResponses(base, goclient.WithHTTPClient(insecure()))
	if err != nil {
		t.Fatal(err)
	}
	login, err := anon.LoginWithResponse(ctx, goclient.LoginJSONRequestBody{User: "admin", Password: password})
	if err != nil || login.JSON200 == nil {
		t.Fatalf("login: %v %s", err, login.Body)
	}
	session := login.JSON200.Result
	made, err := anon.CreateApiKeyWithResponse(ctx, goclient.CreateApiKeyJSONRequestBody{Name: "go"}, withSession(session))
	if err != nil || made.JSON200 == nil {
		t.Fatalf("create-api-key: %v %s", err, made.Body)
	}
	api, _ := goclient.NewClientWithResponses(base, goclient.WithHTTPClient(insecure()),
		goclient.WithRequestEditorFn(withHeader("Svc-Authorization", made.JSON200.Result)))

	desc := "from a generated Go client"
	once := &goclient.CreateDashboardParams{IdempotencyKey: new("go client dashboard")}
	created, err := api.CreateDashboardWithResponse(ctx, once, goclient.CreateDashboardJSONRequestBody{Title: "Go", Description: &desc})
	if err != nil || created.JSON200 == nil {
		t.Fatalf("create-dashboard: %v %s", err, created.Body)
	}
	again, err := api.CreateDashboardWithResponse(ctx, once, goclient.CreateDashboardJSONRequestBody{Title: "Go", Description: &desc})
	if err != nil || again.JSON200 == nil || again.JSON200.Result.Id != created.JSON200.Result.Id ||
		again.HTTPResponse.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("create-dashboard again with its Idempotency-Key: %v %s, want the first answer replayed", err, again.Body)
	}
	got, err := api.GetGetDashboardWithResponse(ctx, &goclient.GetGetDashboardParams{Id: created.JSON200.Result.Id})
	if err != nil || got.JSON200 == nil || got.JSON200.Result.Description != desc {
		t.Fatalf("get-dashboard: %v %s", err, got.Body)
	}
	tag := got.HTTPResponse.Header.Get("ETag")
	same, err := api.GetGetDashboardWithResponse(ctx, &goclient.GetGetDashboardParams{Id: created.JSON200.Result.Id, IfNoneMatch: &tag})
	if err != nil || same.StatusCode() != 304 || len(same.Body) != 0 {
		t.Fatalf("get-dashboard with If-None-Match: %s: %v %d %s, want 304", tag, err, same.StatusCode(), same.Body)
	}

	now := time.Now().Unix()
	side := func(ip string, port, bytes int) map[string]any {
		return map[string]any{"ip": ip, "port": port, "bytes": bytes, "packets": 1}
	}
	ingested, err := api.IngestWithResponse(ctx, &goclient.IngestParams{}, goclient.IngestJSONRequestBody{Records: []any{
		map[string]any{"time": now - 5, "protocol": "tcp", "client": side("10.0.0.1", 50000, 100), "server": side("10.0.0.2", 443, 900)},
	}})
	if err != nil || ingested.JSON200 == nil || ingested.JSON200.Result.Ingested != 1 {
		t.Fatalf("ingest: %v %s", err, ingested.Body)
	}
	q, err := api.QueryWithResponse(ctx, goclient.QueryJSONRequestBody{Expr: "traffic BY protocol SINCE @now-60"})
	if err != nil || q.JSON200 == nil {
		t.Fatalf("query: %v %s", err, q.Body)
	}
	rows := q.JSON200.Result[0].Data
	if len(rows) != 1 {
		t.Fatalf("query rows %v", rows)
	}
	keys, values := rows[0][0], rows[0][1] // a row is [keys, values]
	if len(rows[0]) != 2 || len(keys) != 1 || keys[0] != "tcp" || len(values) != 1 || values[0] != 1000.0 {
		t.Errorf("query row %v, want [[tcp] [1000]]", rows[0])
	}

	bad, err := anon.LoginWithResponse(ctx, goclient.LoginJSONRequestBody{User: "admin", Password: "wrong password"})
	if err != nil || bad.JSON4XX == nil || bad.JSON4XX.Error != "INVALID-CREDENTIALS" {
		t.Errorf("login with a wrong password: %v %s", err, bad.Body)
	}
}

// withSession passes the session ID as _session in the query string, as a program does: the
// session cookie alone is for pages of the server's own origin.
func withSession(id string) goclient.RequestEditorFn {
	return func(_ context.Context, req *http.Request) error {
		q := req.URL.Query()
		q.Set("_session", id)
		req.URL.RawQuery = q.Encode()
		return nil
	}
}

func withHeader(name, value string) goclient.RequestEditorFn {
	return func(_ context.Context, req *http.Request) error {
		req.Header.Set(name, value)
		return nil
	}
}
