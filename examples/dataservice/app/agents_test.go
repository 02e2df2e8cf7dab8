package app_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearer adds an API key as Authorization: Bearer, as an MCP client configured with a key does.
type bearer struct {
	key  string
	next http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return b.next.RoundTrip(r)
}

// agent connects the official MCP Go SDK's client to the service's /api/mcp with key, in a
// session of revision 2025-11-25.
func (s *service) agent(t *testing.T, key string) (*mcp.ClientSession, error) {
	return s.agentAt(t, key, "2025-11-25")
}

// agentAt is agent at a revision: from 2026-07-28, stateless, without a session.
func (s *service) agentAt(t *testing.T, key, revision string) (*mcp.ClientSession, error) {
	t.Helper()
	hc := *s.srv.Client()
	hc.Transport = bearer{key: key, next: hc.Transport}
	c := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: s.api + "/mcp", HTTPClient: &hc, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: revision})
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// readOnlyKey creates a read-only user and answers an API key of it.
func (s *service) readOnlyKey(t *testing.T) string {
	t.Helper()
	ctx := t.Context()
	admin := s.http(t, client.WithAPIKey(s.key))
	if _, err := client.Call(ctx, admin, authapi.CreateUser, authapi.CreateUserArgs{User: "rita", Password: "rita's password", Role: authapi.RoleReadOnly}); err != nil {
		t.Fatal(err)
	}
	tok, err := client.Call(ctx, s.http(t), authapi.Login, authapi.LoginArgs{User: "rita", Password: "rita's password"})
	if err != nil {
		t.Fatal(err)
	}
	key, err := client.Call(ctx, s.http(t, client.WithSession(tok)), authapi.CreateAPIKey, authapi.KeyArgs{Name: "agent"})
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// TestAgents checks the service as an AI agent sees it over MCP, in a session (2025-11-25) and
// stateless (2026-07-28): a read-only user lists and calls only read-only tools, with
// descriptions written for a model; a query's syntax error comes back as a tool error with its
// position; the query language and the prompt are there.
func TestAgents(t *testing.T) {
	t.Parallel()
	s := start(t)
	key := s.readOnlyKey(t)
	for _, revision := range []string{"2025-11-25", "2026-07-28"} {
		if _, err := s.agentAt(t, "secret:00000000-0000-4000-8000-000000000000", revision); err == nil {
			t.Errorf("%s: a wrong key connects", revision)
		}
		cs, err := s.agentAt(t, key, revision)
		if err != nil {
			t.Fatal(err)
		}
		if got := cs.InitializeResult().ProtocolVersion; got != revision {
			t.Errorf("revision %s, want %s", got, revision)
		}
		agentSees(t, cs)
	}
}

func agentSees(t *testing.T, cs *mcp.ClientSession) {
	ctx := t.Context()
	var names []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
		if tool.Name == "query" && (!strings.Contains(tool.Description, "pvql://grammar") || !strings.Contains(tool.Description, "FROM http") || !tool.Annotations.ReadOnlyHint) {
			t.Errorf("query: %q %+v", tool.Description, tool.Annotations)
		}
	}
	for _, want := range []string{"query", "list-fields", "list-dashboards", "get-dashboard"} {
		if !slices.Contains(names, want) {
			t.Errorf("the read-only user does not see %s: %v", want, names)
		}
	}
	for _, hidden := range []string{"ingest", "create-user", "set-config", "create-dashboard"} {
		if slices.Contains(names, hidden) {
			t.Errorf("the read-only user sees %s", hidden)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "query", Arguments: map[string]any{"expr": "traffic, records"}})
	if err != nil || res.IsError {
		t.Fatalf("query: %v %+v", err, res)
	}
	if sc, _ := res.StructuredContent.(map[string]any); sc == nil || sc["result"] == nil {
		t.Errorf("query's structured content: %+v", res.StructuredContent)
	}
	// Which URLs are slow: the HTTP layer, as the description teaches it.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "query", Arguments: map[string]any{"expr": "p95(srt), records BY http.host, http.path FROM http TOP 10"}})
	if err != nil || res.IsError {
		t.Fatalf("a query of the HTTP layer: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "query", Arguments: map[string]any{"expr": "traffic BY nope"}})
	if err != nil || !res.IsError {
		t.Fatalf("a bad query: %v %+v", err, res)
	}
	var e struct {
		Error    string `json:"error"`
		Position *int   `json:"position"`
	}
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &e); err != nil || e.Error != "QUERY-SYNTAX" || e.Position == nil || *e.Position != 11 {
		t.Errorf("a bad query's error: %v %+v", err, res.Content[0])
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "create-user", Arguments: map[string]any{"user": "x", "password": "xxxxxxxxxx"}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "PERMISSION-DENIED") {
		t.Errorf("create-user as read-only: %v %+v", err, res)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "pvql://grammar"})
	if err != nil || !strings.Contains(rr.Contents[0].Text, "statement := values { clause }") {
		t.Errorf("grammar: %v", err)
	}
	rr, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "pvql://fields"})
	if err != nil || !strings.Contains(rr.Contents[0].Text, `"name":"client.ip"`) || !strings.Contains(rr.Contents[0].Text, `"layers":["http"]`) {
		t.Errorf("fields: %v %+v", err, rr)
	}
	gp, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "what-changed"})
	if err != nil || !strings.Contains(gp.Messages[0].Content.(*mcp.TextContent).Text, "SINCE @now-7200 UNTIL @now-3600") {
		t.Errorf("prompt: %v %+v", err, gp)
	}
}

// TestAgentDescriptions checks that every description written for models names a function
// of the latest API, so that a renamed function does not leave its description behind.
func TestAgentDescriptions(t *testing.T) {
	t.Parallel()
	s := start(t)
	cs, err := s.agent(t, s.key)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for tool, err := range cs.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	for name := range app.AgentDescriptions() {
		if !slices.Contains(names, name) {
			t.Errorf("a description for %s, which the administrator's tools do not hold", name)
		}
	}
}

// TestJSONRPC calls the service over JSON-RPC 2.0 with a key as Authorization: Bearer: a batch
// of a query, a bad query and a notification.
func TestJSONRPC(t *testing.T) {
	t.Parallel()
	s := start(t)
	body := `[{"jsonrpc":"2.0","id":1,"method":"query","params":{"expr":"records"}},
		{"jsonrpc":"2.0","id":2,"method":"query","params":{"expr":"records BY"}},
		{"jsonrpc":"2.0","method":"echo","params":{"x":1}}]`
	req, _ := http.NewRequestWithContext(context.Background(), "POST", s.api+"/jsonrpc", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+s.key)
	res, err := s.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var out []struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code int `json:"code"`
			Data struct {
				Error    string `json:"error"`
				Position int    `json:"position"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &out); err != nil || len(out) != 2 {
		t.Fatalf("%v: %s", err, b)
	}
	if out[0].ID != 1 || out[0].Error != nil || !strings.Contains(string(out[0].Result), `"data"`) {
		t.Errorf("query: %s", b)
	}
	if e := out[1].Error; out[1].ID != 2 || e == nil || e.Code != -32000 || e.Data.Error != "QUERY-SYNTAX" || e.Data.Position != 10 {
		t.Errorf("bad query: %s", b)
	}
}
