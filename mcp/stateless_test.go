package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/jsonrpc"
	"github.com/fnapi/fnapi/mcp"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/transport"
)

// meta is the _meta of a stateless request.
const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// stateless sends a request of revision 2026-07-28: its headers, then extra (name, value).
func (s *server) stateless(key, method, name, params string, extra ...string) answer {
	s.t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":%q,"params":{%s}}`, method, params)
	h := []string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method}
	if key != "" {
		h = append(h, "Authorization", "Bearer "+key)
	}
	if name != "" {
		h = append(h, "Mcp-Name", name)
	}
	return s.send("POST", "/api/mcp", body, append(h, extra...)...)
}

// TestStateless checks revision 2026-07-28 beside 2025-11-25 on one endpoint: requests with
// no session, server/discover, caching hints, the Mcp-Method and Mcp-Name headers, and the
// errors the revision specifies, each carrying the request's id.
func TestStateless(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	a := s.stateless(s.readerKey, "server/discover", "", meta)
	r := a.result()
	if a.status != 200 || r["resultType"] != "complete" || r["cacheScope"] != "private" || r["ttlMs"] != 0.0 ||
		!strings.Contains(a.body, `"supportedVersions":["2026-07-28","2025-11-25"`) || !strings.Contains(a.body, `"io.modelcontextprotocol/serverInfo"`) {
		t.Errorf("server/discover: %d %s", a.status, a.body)
	}
	if caps, _ := r["capabilities"].(map[string]any); caps["tools"] == nil || caps["logging"] != nil {
		t.Errorf("capabilities: %v", caps)
	}
	if a.header.Get("Mcp-Session-Id") != "" {
		t.Errorf("a stateless answer starts a session: %v", a.header)
	}
	a = s.stateless(s.readerKey, "tools/list", "", meta)
	if r := a.result(); r["resultType"] != "complete" || r["cacheScope"] != "private" || !strings.Contains(a.body, `"name":"add"`) {
		t.Errorf("tools/list: %s", a.body)
	}
	a = s.stateless(s.readerKey, "tools/call", "add", `"name":"add","arguments":{"a":2,"b":3},`+meta)
	if r := a.result(); r["resultType"] != "complete" || r["ttlMs"] != nil || !strings.Contains(a.body, `"structuredContent":{"result":5}`) {
		t.Errorf("tools/call: %s", a.body)
	}
	// Mcp-Name is compared without the whitespace around it.
	if a := s.stateless(s.readerKey, "tools/call", "  add ", `"name":"add","arguments":{"a":2,"b":3},`+meta); a.status != 200 || a.errCode() != 0 {
		t.Errorf("Mcp-Name with whitespace: %d %s", a.status, a.body)
	}
	a = s.stateless(s.readerKey, "resources/read", "doc://nope", `"uri":"doc://nope",`+meta)
	if e, _ := a.last()["error"].(map[string]any); a.errCode() != jsonrpc.CodeInvalidParams || fmt.Sprint(e["data"]) != "map[uri:doc://nope]" {
		t.Errorf("a resource not found: %s", a.body)
	}
	for _, c := range []struct {
		what, method, name, params string
		extra                      []string
		status, code               int
	}{
		{"no _meta", "tools/list", "", ``, nil, 400, jsonrpc.CodeInvalidParams},
		{"no capabilities", "tools/list", "", `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`, nil, 400, jsonrpc.CodeInvalidParams},
		{"_meta's version not the header's", "tools/list", "", strings.Replace(meta, `"2026-07-28"`, `"2025-11-25"`, 1), nil, 400, mcp.CodeHeaderMismatch},
		{"an unknown version", "tools/list", "", strings.Replace(meta, `"2026-07-28"`, `"2099-01-01"`, 1), []string{"MCP-Protocol-Version", "2099-01-01"}, 400, mcp.CodeUnsupportedVersion},
		{"Mcp-Method not the body's", "tools/list", "", meta, []string{"Mcp-Method", "prompts/list"}, 400, mcp.CodeHeaderMismatch},
		{"Mcp-Method missing", "tools/list", "", meta, []string{"Mcp-Method", ""}, 400, mcp.CodeHeaderMismatch},
		{"Mcp-Name not the body's", "tools/call", "touch", `"name":"add","arguments":{},` + meta, nil, 400, mcp.CodeHeaderMismatch},
		{"Mcp-Name missing", "tools/call", "", `"name":"add","arguments":{},` + meta, nil, 400, mcp.CodeHeaderMismatch},
		{"a removed method", "ping", "", meta, nil, 404, jsonrpc.CodeMethodNotFound},
		{"initialize", "initialize", "", `"protocolVersion":"2026-07-28",` + meta, nil, 404, jsonrpc.CodeMethodNotFound},
		{"an unknown method", "nope/nope", "", meta, nil, 404, jsonrpc.CodeMethodNotFound},
	} {
		a := s.stateless(s.readerKey, c.method, c.name, c.params, c.extra...)
		if a.status != c.status || a.errCode() != c.code || a.last()["id"] != 7.0 {
			t.Errorf("%s: %d %s, want %d and code %d with id 7", c.what, a.status, a.body, c.status, c.code)
		}
	}
	// No token: 401, as in a session.
	if a := s.stateless("", "tools/list", "", meta); a.status != http.StatusUnauthorized {
		t.Errorf("no token: %d %s", a.status, a.body)
	}
	// A session of 2025-11-25 beside them.
	_, do := s.session(s.readerKey)
	if a := do(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":1}}}`); a.result()["resultType"] != nil || !strings.Contains(a.body, `"result":2`) {
		t.Errorf("a call in a session: %s", a.body)
	}
}

// TestStatelessNodes checks that stateless requests need no state shared between nodes: two
// servers that share nothing answer the requests of one client, alternately, and each
// request counts against the rate limit of the node it reaches.
func TestStatelessNodes(t *testing.T) {
	t.Parallel()
	var nodes []*server
	for range 2 {
		reg := registry.New()
		fnapi.MustRegisterBuiltins(reg)
		limit := transport.RateLimit{PerSecond: 0.001, Burst: 3}
		h, err := fnapi.New(reg, fnapi.WithInterceptors(limit.Interceptor()), fnapi.WithMCP(mcp.Options{}))
		if err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, serve(t, h))
	}
	call := `"name":"echo","arguments":{"a":1},` + meta
	for i := range 3 { // a list on one node, a call on the other: 3 requests each
		a := nodes[i%2].stateless("", "tools/list", "", meta)
		if r := a.result(); r["cacheScope"] != "public" || !strings.Contains(a.body, `"name":"echo"`) {
			t.Fatalf("tools/list %d: %d %s", i, a.status, a.body)
		}
		if a = nodes[(i+1)%2].stateless("", "tools/call", "echo", call); !strings.Contains(a.body, `"structuredContent":{"a":1}`) {
			t.Fatalf("tools/call %d: %d %s", i, a.status, a.body)
		}
	}
	for _, n := range nodes {
		if a := n.stateless("", "tools/list", "", meta); a.status != http.StatusTooManyRequests || a.last()["id"] != 7.0 {
			t.Errorf("a request past the node's limit: %d %s", a.status, a.body)
		}
	}
}

// TestStatelessKeptArguments checks that a function may keep the arguments of a stateless
// call past its answer: the request's body is read into a buffer lent for the request, which
// the next requests reuse, so the arguments the function gets are a copy of their own.
func TestStatelessKeptArguments(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	var kept []map[string]json.RawMessage
	if err := reg.Register("keep", func(args map[string]json.RawMessage) (int, error) {
		kept = append(kept, args) // one request at a time: the test sends them in turn
		return len(kept), nil
	}, registry.Requires(decl.Public)); err != nil {
		t.Fatal(err)
	}
	h, err := fnapi.New(reg, fnapi.WithMCP(mcp.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	s := serve(t, h)
	for i := range 20 {
		arg := fmt.Sprintf(`"value %02d"`, i)
		if a := s.stateless("", "tools/call", "keep", `"name":"keep","arguments":{"v":`+arg+`},`+meta); a.status != 200 || a.errCode() != 0 {
			t.Fatalf("call %d: %d %s", i, a.status, a.body)
		}
	}
	for i, args := range kept {
		if want := fmt.Sprintf(`"value %02d"`, i); string(args["v"]) != want {
			t.Errorf("call %d's argument, kept: %s, want %s", i, args["v"], want)
		}
	}
}

// TestStatelessKeptContext checks that a function that keeps its context past its answer (a
// goroutine logging, reporting progress and asking on) reaches no other request: what its
// context reaches is its request's own, ended with it, not the request's body, whose buffer
// the next requests reuse (run with -race).
func TestStatelessKeptContext(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	t.Cleanup(func() { close(stop); wg.Wait() })
	if err := reg.Register("leak", func(ctx context.Context, in struct {
		N int `json:"n"`
	}) string {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				case <-time.After(time.Millisecond):
				}
				mcp.Log(ctx, "error", "leak", in.N)
				mcp.Progress(ctx, 1, 0, fmt.Sprint(in.N))
				_, _ = mcp.Ask(ctx, map[string]mcp.Input{"q": {Method: "elicitation/create", Params: map[string]any{}}})
			}
		}()
		return "left"
	}, registry.Requires(decl.Public)); err != nil {
		t.Fatal(err)
	}
	h, err := fnapi.New(reg, fnapi.WithMCP(mcp.Options{}), fnapi.WithJSONRPC(jsonrpc.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	s := serve(t, h)
	withAll := strings.Replace(meta, `clientCapabilities":{}`, `clientCapabilities":{"elicitation":{}}`, 1)
	for i := range 30 {
		a := s.stateless("", "tools/call", "leak", fmt.Sprintf(`"name":"leak","arguments":{"n":%d},`, i)+strings.Replace(withAll, `"_meta":{`, `"_meta":{"progressToken":1,"io.modelcontextprotocol/logLevel":"debug",`, 1))
		if a.status != 200 || a.msgs[len(a.msgs)-1]["result"] == nil {
			t.Fatalf("call %d: %d %s, want its result", i, a.status, a.body)
		}
		for _, m := range a.msgs[:len(a.msgs)-1] { // its own function's, while it ran
			p, _ := m["params"].(map[string]any)
			if p["data"] != float64(i) && p["message"] != fmt.Sprint(i) {
				t.Errorf("call %d's answer carries another call's message: %v", i, m)
			}
		}
	}
}

// TestToolResultWhole checks a tool's result written with its response's envelope, in both
// revisions and with ids of every kind: large and full of characters to escape, it outgrows
// the room made for it, and both its text and its structured content are still the value.
func TestToolResultWhole(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	_, inSession := s.session(s.readerKey)
	value := map[string]any{"s": strings.Repeat("\"\\\n\x01é", 400), "n": []any{1.0, "x", nil}}
	args, _ := json.Marshal(value)
	for _, id := range []string{`7`, `"id-\"q\""`, `null`, `-1.5e3`} {
		params := `"name":"echo","arguments":` + string(args)
		for name, a := range map[string]answer{
			"stateless": s.send("POST", "/api/mcp", `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{`+params+`,`+meta+`}}`,
				"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "echo", "Authorization", "Bearer "+s.readerKey),
			"session": inSession(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{` + params + `}}`),
		} {
			var resp struct {
				ID     json.RawMessage
				Result struct {
					Content           []struct{ Text string }
					StructuredContent map[string]any
				}
			}
			if err := json.Unmarshal([]byte(a.body), &resp); err != nil || a.status != 200 || string(resp.ID) != id || len(resp.Result.Content) != 1 {
				t.Fatalf("%s, id %s: %d %.200s (%v)", name, id, a.status, a.body, err)
			}
			var text map[string]any
			if err := json.Unmarshal([]byte(resp.Result.Content[0].Text), &text); err != nil || fmt.Sprint(text) != fmt.Sprint(value) || fmt.Sprint(resp.Result.StructuredContent) != fmt.Sprint(value) {
				t.Errorf("%s, id %s: text %.100q, structured %.100v, want %.100v", name, id, resp.Result.Content[0].Text, resp.Result.StructuredContent, value)
			}
		}
	}
}
