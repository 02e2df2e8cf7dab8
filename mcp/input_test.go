package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/mcp"
	"github.com/fnapi/fnapi/registry"
)

// askServer serves, without tokens, "greet", which asks its user's name then, answered, its
// favourite colour, and "ask", which asks n questions at once.
func askServer(t *testing.T, opts mcp.Options) *server {
	t.Helper()
	reg := registry.New()
	public := registry.Requires(decl.Public)
	form := func(prop string) mcp.Input {
		return mcp.Input{Method: "elicitation/create", Params: map[string]any{"message": "Your " + prop + "?",
			"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{prop: map[string]any{"type": "string"}}}}}
	}
	field := func(res json.RawMessage, prop string) string {
		var m struct{ Content map[string]string }
		_ = json.Unmarshal(res, &m)
		return m.Content[prop]
	}
	reg.MustRegister("greet", func(ctx context.Context) (string, error) {
		a, err := mcp.Ask(ctx, map[string]mcp.Input{"name": form("name")})
		if err != nil {
			return "", err
		}
		b, err := mcp.Ask(ctx, map[string]mcp.Input{"color": form("color")})
		if err != nil {
			return "", err
		}
		return field(a["name"], "name") + " likes " + field(b["color"], "color"), nil
	}, public)
	reg.MustRegister("ask", func(ctx context.Context, in struct {
		N int `json:"n"`
	}) (int, error) {
		qs := map[string]mcp.Input{}
		for i := range in.N {
			qs[fmt.Sprint("q", i)] = form("name")
		}
		a, err := mcp.Ask(ctx, qs)
		return len(a), err
	}, public)
	reg.MustRegister("model", func(ctx context.Context) (string, error) {
		a, err := mcp.Request(ctx, "sampling/createMessage", map[string]any{"messages": []any{}, "maxTokens": 1})
		return string(a), err
	}, public)
	h, err := fnapi.New(reg, fnapi.WithMCP(opts))
	if err != nil {
		t.Fatal(err)
	}
	return serve(t, h)
}

// call sends a stateless tools/call of tool with extra params, as the caller key.
func (s *server) call(key, tool, extra string) answer {
	s.t.Helper()
	caps := `"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}`
	if strings.Contains(extra, "clientCapabilities") {
		caps = ""
	}
	params := fmt.Sprintf(`"name":%q,"arguments":{},%s"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"%s}`, tool, extra, map[bool]string{true: "," + caps}[caps != ""])
	if caps == "" {
		params = fmt.Sprintf(`"name":%q,"arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",%s}`, tool, extra)
	}
	return s.stateless(key, "tools/call", tool, params)
}

// TestAskStateless checks the multi-round input_required results of 2026-07-28: a function
// that asks twice is called three times, the answers of earlier rounds travel in a signed
// requestState, which no one can alter, replay for another caller or tool, or keep past
// Options.StateTTL.
func TestAskStateless(t *testing.T) {
	t.Parallel()
	s := askServer(t, mcp.Options{})
	a := s.call("alice", "greet", "")
	r := a.result()
	state, _ := r["requestState"].(string)
	if !strings.HasPrefix(a.body, `{"jsonrpc":"2.0","id":7,"result":{"resultType":"input_required","inputRequests":{"name":{"method":"elicitation/create"`) || state == "" {
		t.Fatalf("round 1: %d %s", a.status, a.body)
	}
	name := `"inputResponses":{"name":{"action":"accept","content":{"name":"ada"}}},`
	a = s.call("alice", "greet", name+`"requestState":"`+state+`",`)
	state2, _ := a.result()["requestState"].(string)
	if !strings.Contains(a.body, `"inputRequests":{"color":`) || state2 == "" || state2 == state {
		t.Fatalf("round 2: %s", a.body)
	}
	color := `"inputResponses":{"color":{"action":"accept","content":{"color":"red"}}},`
	if a = s.call("alice", "greet", color+`"requestState":"`+state2+`",`); !strings.Contains(a.body, `"resultType":"complete"`) || !strings.Contains(a.body, `ada likes red`) {
		t.Fatalf("round 3: %s", a.body)
	}
	// Without the state, the first answer is missing: asked again.
	if a = s.call("alice", "greet", color); !strings.Contains(a.body, `"inputRequests":{"name":`) {
		t.Errorf("round 3 without its state: %s", a.body)
	}
	for _, c := range []struct{ what, key, tool, extra string }{
		{"a tampered state", "alice", "greet", color + `"requestState":"` + state2[:len(state2)-2] + `AA",`},
		{"a state with other answers", "alice", "greet", color + `"requestState":"` + state + `x",`},
		{"another caller's state", "bob", "greet", color + `"requestState":"` + state2 + `",`},
		{"another tool's state", "alice", "ask", `"requestState":"` + state2 + `",`},
		{"a state that is no string", "alice", "greet", `"requestState":7,`},
		{"an answer that is no object", "alice", "greet", `"inputResponses":{"name":12345},`},
		{"inputResponses null", "alice", "greet", `"inputResponses":null,`},
	} {
		if a := s.call(c.key, c.tool, c.extra); a.errCode() != -32602 || a.last()["id"] != 7.0 {
			t.Errorf("%s: %d %s", c.what, a.status, a.body)
		}
	}
	// A question the client did not declare it can answer: -32021, HTTP 400.
	a = s.call("alice", "model", `"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}`)
	if a.status != http.StatusBadRequest || a.errCode() != mcp.CodeMissingCapability || !strings.Contains(a.body, `"requiredCapabilities":{"sampling":{}}`) {
		t.Errorf("an undeclared capability: %d %s", a.status, a.body)
	}
	// Request is Ask of one question, keyed request-N.
	a = s.call("alice", "model", `"io.modelcontextprotocol/clientCapabilities":{"sampling":{}}`)
	if !strings.Contains(a.body, `"inputRequests":{"request-1":{"method":"sampling/createMessage"`) {
		t.Errorf("Request: %s", a.body)
	}
}

// TestAskBounds checks the bound on the questions of one round (16), and that a state past
// Options.StateTTL is refused.
func TestAskBounds(t *testing.T) {
	t.Parallel()
	s := askServer(t, mcp.Options{StateTTL: time.Nanosecond})
	ask := func(n int) answer {
		return s.stateless("", "tools/call", "ask", fmt.Sprintf(`"name":"ask","arguments":{"n":%d},%s`, n,
			strings.Replace(meta, `clientCapabilities":{}`, `clientCapabilities":{"elicitation":{}}`, 1)))
	}
	if a := ask(16); strings.Count(a.body, `"method":"elicitation/create"`) != 16 {
		t.Errorf("16 questions: %s", a.body)
	}
	if a := ask(17); a.result()["isError"] != true || a.result()["resultType"] != "complete" {
		t.Errorf("17 questions: %s", a.body)
	}
	a := s.call("alice", "greet", "")
	state, _ := a.result()["requestState"].(string)
	if a := s.call("alice", "greet", `"requestState":"`+state+`",`); a.errCode() != -32602 {
		t.Errorf("an expired state: %s", a.body)
	}
}
