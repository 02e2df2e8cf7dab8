package mcp_test

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// toolNames lists every tool, following the cursors.
func toolNames(t *testing.T, do func(string, ...string) answer) []string {
	t.Helper()
	var names []string
	cursor := ""
	for range 100 {
		params := `{}`
		if cursor != "" {
			params = `{"cursor":"` + cursor + `"}`
		}
		a := do(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":` + params + `}`)
		r := a.result()
		if r == nil {
			t.Fatalf("tools/list: %s", a.body)
		}
		for _, tl := range r["tools"].([]any) {
			names = append(names, tl.(map[string]any)["name"].(string))
		}
		next, _ := r["nextCursor"].(string)
		if next == "" {
			return names
		}
		cursor = next
	}
	t.Fatal("tools/list never ends")
	return nil
}

func TestToolsByRole(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	_, reader := s.session(s.readerKey)
	_, admin := s.session(s.adminKey)
	rn, an := toolNames(t, reader), toolNames(t, admin)
	for _, want := range []string{"add", "boom", "count", "echo", "guide"} {
		if !slices.Contains(rn, want) {
			t.Errorf("the read-only user does not see %s: %v", want, rn)
		}
	}
	for _, hidden := range []string{"touch", "create-user", "delete-user"} {
		if slices.Contains(rn, hidden) {
			t.Errorf("the read-only user sees %s", hidden)
		}
		if !slices.Contains(an, hidden) {
			t.Errorf("the administrator does not see %s", hidden)
		}
	}
	if !slices.IsSorted(an) || len(an) <= 3 {
		t.Errorf("pages of 3 should give every tool once, in order: %v", an)
	}
	// A tool the role does not allow is refused as a tool error.
	a := reader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"touch"}}`)
	if r := a.result(); r["isError"] != true || !strings.Contains(toolText(r), "PERMISSION-DENIED") {
		t.Errorf("touch as reader: %s", a.body)
	}
}

func toolText(r map[string]any) string {
	c, _ := r["content"].([]any)
	if len(c) == 0 {
		return ""
	}
	s, _ := c[0].(map[string]any)["text"].(string)
	return s
}

func TestToolSchemasAndCalls(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	_, do := s.session(s.readerKey)
	a := do(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`)
	var add map[string]any
	for _, tl := range a.result()["tools"].([]any) {
		if m := tl.(map[string]any); m["name"] == "add" {
			add = m
		}
	}
	if add == nil {
		t.Fatalf("no add on the first page: %s", a.body)
	}
	b, _ := json.Marshal(add)
	for _, want := range []string{`"readOnlyHint":true`, `"required":["a","b"]`, `"outputSchema":{"properties":{"result":{"type":"integer"}},"type":"object"}`, `"description":"Adds a and b: use it for sums."`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("add lacks %s: %s", want, b)
		}
	}
	a = do(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}`)
	if r := a.result(); r["isError"] == true || toolText(r) != "5" || r["structuredContent"].(map[string]any)["result"] != 5.0 {
		t.Errorf("add: %s", a.body)
	}
	a = do(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"boom","arguments":{}}}`)
	if r := a.result(); r["isError"] != true || toolText(r) != `{"type":"error","error":"BOOM","at":7}` {
		t.Errorf("boom: %s", a.body)
	}
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	id, do := s.session(s.readerKey)
	tests := []struct {
		name, body string
		status     int
		code       int // JSON-RPC error code; 0 for a result
		text       string
	}{
		{"not JSON", `{"jsonrpc":`, 400, -32700, ""},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, 400, -32600, ""},
		{"a batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, 400, -32600, ""},
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":"nope"}`, 200, -32601, ""},
		{"unknown tool", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}`, 200, -32602, ""},
		{"arguments not an object", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":[1,2]}}`, 200, -32602, ""},
		{"schema mismatch", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":"x","b":1}}}`, 200, 0, `"error":"INVALID-ARGUMENT"`},
		{"missing argument", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1}}}`, 200, 0, `"error":"TOO-FEW-ARGUMENTS"`},
		{"bad log level", `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"loud"}}`, 200, -32602, ""},
		{"ping", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, 200, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := do(tt.body)
			if a.status != tt.status || a.errCode() != tt.code {
				t.Errorf("status %d, code %d; want %d, %d: %s", a.status, a.errCode(), tt.status, tt.code, a.body)
			}
			if tt.text != "" && (a.result()["isError"] != true || !strings.Contains(toolText(a.result()), tt.text)) {
				t.Errorf("want a tool error with %s: %s", tt.text, a.body)
			}
		})
	}
	// Headers.
	if a := do(`{"jsonrpc":"2.0","id":1,"method":"ping"}`, "MCP-Protocol-Version", "1999-01-01"); a.status != 400 {
		t.Errorf("unsupported protocol version: %d %s", a.status, a.body)
	}
	if a := do(`{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Origin", "http://evil.example"); a.status != 403 {
		t.Errorf("foreign Origin: %d %s", a.status, a.body)
	}
	if a := s.send("POST", "/api/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Authorization", "Bearer "+s.readerKey); a.status != 400 {
		t.Errorf("no session id: %d %s", a.status, a.body)
	}
	if a := do(`{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Mcp-Session-Id", "not-a-session"); a.status != 404 {
		t.Errorf("unknown session id: %d %s", a.status, a.body)
	}
	// Another caller cannot use the session.
	if a := s.send("POST", "/api/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Authorization", "Bearer "+s.adminKey, "Mcp-Session-Id", id); a.status != 404 {
		t.Errorf("another caller's session: %d %s", a.status, a.body)
	}
	// After DELETE, the session is gone.
	if a := s.send("DELETE", "/api/mcp", "", "Authorization", "Bearer "+s.readerKey, "Mcp-Session-Id", id); a.status != 204 {
		t.Errorf("DELETE: %d %s", a.status, a.body)
	}
	if a := do(`{"jsonrpc":"2.0","id":1,"method":"ping"}`); a.status != 404 {
		t.Errorf("after DELETE: %d %s", a.status, a.body)
	}
}

func TestUnauthenticated(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`
	for name, headers := range map[string][]string{
		"no token":       nil,
		"a wrong key":    {"Authorization", "Bearer secret:00000000-0000-4000-8000-000000000000"},
		"a wrong header": {"Svc-Authorization", "secret:00000000-0000-4000-8000-000000000000"},
	} {
		a := s.send("POST", "/api/mcp", init, headers...)
		if a.status != 401 || !strings.HasPrefix(a.header.Get("WWW-Authenticate"), "Bearer ") {
			t.Errorf("%s: %d %q %s", name, a.status, a.header.Get("WWW-Authenticate"), a.body)
		}
	}
	// The key header works as well as Bearer.
	if a := s.send("POST", "/api/mcp", init, "Svc-Authorization", s.readerKey); a.status != 200 {
		t.Errorf("key header: %d %s", a.status, a.body)
	}
}

func TestProgressAndCancel(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	_, do := s.session(s.readerKey)
	a := do(`{"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"name":"count","arguments":{"n":4},"_meta":{"progressToken":"tok"}}}`)
	var progress []float64
	for _, m := range a.msgs[:len(a.msgs)-1] {
		p := m["params"].(map[string]any)
		if m["method"] != "notifications/progress" || p["progressToken"] != "tok" {
			t.Errorf("not a progress notification: %v", m)
		}
		progress = append(progress, p["progress"].(float64))
	}
	if !slices.Equal(progress, []float64{0.25, 0.5, 0.75, 1}) {
		t.Errorf("progress %v: %s", progress, a.body)
	}
	if r := a.result(); r["isError"] == true || !strings.Contains(toolText(r), `"i":4`) {
		t.Errorf("count's result: %s", a.body)
	}
	// Without a progress token, one JSON answer.
	if a := do(`{"jsonrpc":"2.0","id":"q","method":"tools/call","params":{"name":"count","arguments":{"n":2}}}`); len(a.msgs) != 1 || a.result() == nil {
		t.Errorf("without progress: %s", a.body)
	}
	// Cancel a long call from another request.
	var wg sync.WaitGroup
	wg.Add(1)
	done := make(chan answer, 1)
	go func() {
		defer wg.Done()
		done <- do(`{"jsonrpc":"2.0","id":"long","method":"tools/call","params":{"name":"count","arguments":{"n":1000,"wait_ms":20}}}`)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if a := do(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"long"}}`); a.status != 202 {
			t.Fatalf("cancel: %d %s", a.status, a.body)
		}
		select {
		case a := <-done:
			wg.Wait()
			if r := a.result(); r["isError"] != true || !strings.Contains(toolText(r), "CANCELLED") {
				t.Errorf("cancelled call: %s", a.body)
			}
			return
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the call was not cancelled")
		}
	}
}

func TestResourcesAndPrompts(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	_, do := s.session(s.readerKey)
	a := do(`{"jsonrpc":"2.0","id":1,"method":"resources/list"}`)
	if !strings.Contains(a.body, `"uri":"doc://api"`) {
		t.Errorf("resources/list: %s", a.body)
	}
	a = do(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"doc://api"}}`)
	if !strings.Contains(a.body, `"mimeType":"application/json"`) || !strings.Contains(a.body, `\"functions\"`) {
		t.Errorf("resources/read: %.300s", a.body)
	}
	if a := do(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"doc://nope"}}`); a.errCode() != -32002 {
		t.Errorf("unknown resource: %s", a.body)
	}
	a = do(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"text://static"}}`)
	if !strings.Contains(a.body, `"contents":[{"uri":"text://static","mimeType":"text/plain","text":"static text"}]`) {
		t.Errorf("static resource: %s", a.body)
	}
	a = do(`{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"hello"}}`)
	if !strings.Contains(a.body, `"messages":[{"role":"user","content":{"type":"text","text":"Say hello."}}]`) {
		t.Errorf("static prompt: %s", a.body)
	}
	a = do(`{"jsonrpc":"2.0","id":1,"method":"prompts/list"}`)
	if !strings.Contains(a.body, `{"description":"what to explain","name":"topic","required":true}`) {
		t.Errorf("prompts/list: %s", a.body)
	}
	a = do(`{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"explain","arguments":{"topic":"flows"}}}`)
	if !strings.Contains(a.body, `"messages":[{"role":"user","content":{"type":"text","text":"Explain flows"}}]`) {
		t.Errorf("prompts/get: %s", a.body)
	}
}
