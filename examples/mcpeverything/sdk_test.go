//lint:file-ignore SA1019 the tests use sampling and logging, features of the 2025-11-25 specification served here, which the SDK deprecates for a later one

package main

import (
	"context"
	"errors"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fnapi/fnapi/internal/testutil"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// connect starts the example over real TLS and connects the official Go SDK's client to it,
// in a session of revision 2025-11-25.
func connect(t *testing.T, opts *mcp.ClientOptions) *mcp.ClientSession {
	return connectAt(t, "2025-11-25", opts)
}

// connectAt is connect at a revision: the SDK discovers a stateless server from 2026-07-28.
func connectAt(t *testing.T, revision string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	h, err := handler(zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewTLSServer(h)
	t.Cleanup(srv.Close)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", HTTPClient: srv.Client(), MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: revision})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func textOf(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) == 0 {
		t.Fatal("no content")
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content %T", res.Content[0])
	}
	return tc.Text
}

func TestGoSDKTools(t *testing.T) {
	t.Parallel()
	cs := connect(t, nil)
	ctx := t.Context()
	if got := cs.InitializeResult().ProtocolVersion; got != "2025-11-25" {
		t.Errorf("protocol %s", got)
	}
	var names []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
		if tool.Name == "count" && (tool.Annotations == nil || !tool.Annotations.ReadOnlyHint) {
			t.Errorf("count is read-only: %+v", tool.Annotations)
		}
	}
	for _, want := range []string{"count", "test_simple_text", "test_sampling", "test_error_handling"} {
		if !slices.Contains(names, want) {
			t.Errorf("no tool %s in %v", want, names)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_simple_text"})
	if err != nil || res.IsError || textOf(t, res) != "This is a simple text response for testing." {
		t.Errorf("test_simple_text: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_error_handling"})
	if err != nil || !res.IsError || !strings.Contains(textOf(t, res), `"error":"TEST-ERROR"`) {
		t.Errorf("test_error_handling: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "count", Arguments: map[string]any{"n": 0}})
	if err != nil || !res.IsError || !strings.Contains(textOf(t, res), `"error":"INVALID-ARGUMENT"`) {
		t.Errorf("count below its minimum: %v %+v", err, res)
	}
	if _, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope"}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("unknown tool: %v", err)
	}
}

func TestGoSDKProgressLogsAndCancel(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var progress []float64
	var logs []string
	cs := connect(t, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, r.Params.Progress)
			mu.Unlock()
		},
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			mu.Lock()
			logs = append(logs, string(r.Params.Level)+" "+r.Params.Data.(string))
			mu.Unlock()
		},
	})
	ctx := t.Context()
	params := &mcp.CallToolParams{Name: "count", Arguments: map[string]any{"n": 4}}
	params.SetProgressToken("p")
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("count: %v %+v", err, res)
	}
	if sc, _ := res.StructuredContent.(map[string]any); len(sc["result"].([]any)) != 4 {
		t.Errorf("count's structured content: %+v", res.StructuredContent)
	}
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_tool_with_logging"}); err != nil {
		t.Fatal(err)
	}
	// The SDK hands notifications to their handlers on its own goroutines: the last ones may
	// reach them just after the call's answer.
	arrived := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(progress) >= 4 && len(logs) >= 3
	}
	for deadline := time.Now().Add(10 * time.Second); !arrived() && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	if !slices.Equal(progress, []float64{0.25, 0.5, 0.75, 1}) {
		t.Errorf("progress %v", progress)
	}
	if len(logs) != 3 || logs[0] != "info Tool execution started" {
		t.Errorf("logs %v", logs)
	}
	mu.Unlock()
	// Cancel mid-stream: the client sends notifications/cancelled when its context ends.
	cctx, cancel := context.WithCancel(ctx)
	params = &mcp.CallToolParams{Name: "count", Arguments: map[string]any{"n": 100000, "interval_ms": 10}}
	params.SetProgressToken("c")
	go func() {
		for {
			mu.Lock()
			n := len(progress)
			mu.Unlock()
			if n > 6 {
				cancel()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	start := time.Now()
	_, err = cs.CallTool(cctx, params)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: %v", err)
	}
	if time.Since(start) > 30*time.Second {
		t.Error("the call ran on")
	}
	// The session still works.
	if err := cs.Ping(ctx, nil); err != nil {
		t.Errorf("ping after cancel: %v", err)
	}
}

// TestGoSDKAsksClient checks that a function asks its client through mcp.Request and mcp.Ask
// in either revision: requests of the server in a session (2025-11-25), input_required
// results the SDK answers and calls again with (2026-07-28), two rounds for
// test_input_required_result_multi_round.
func TestGoSDKAsksClient(t *testing.T) {
	t.Parallel()
	for _, revision := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(revision, func(t *testing.T) {
			t.Parallel()
			asksClient(t, revision)
		})
	}
}

func asksClient(t *testing.T, revision string) {
	var mu sync.Mutex
	var asked []string
	cs := connectAt(t, revision, &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			prompt := r.Params.Messages[0].Content.(*mcp.TextContent).Text
			return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "answer to " + prompt}}, nil
		},
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			asked = append(asked, r.Params.Message)
			mu.Unlock()
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"username": "ada", "email": "ada@example.com", "name": "ada", "color": "red"}}, nil
		},
	})
	ctx := t.Context()
	if got := cs.InitializeResult().ProtocolVersion; got != revision {
		t.Fatalf("protocol %s", got)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_sampling", Arguments: map[string]any{"prompt": "why"}})
	if err != nil || textOf(t, res) != "LLM response: answer to why" {
		t.Errorf("sampling: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_elicitation", Arguments: map[string]any{"message": "who"}})
	if err != nil || !strings.Contains(textOf(t, res), `action=accept, content={"color":"red","email":"ada@example.com","name":"ada","username":"ada"}`) {
		t.Errorf("elicitation: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_input_required_result_multi_round"})
	if err != nil || textOf(t, res) != "ada likes red" {
		t.Errorf("two rounds: %v %+v", err, res)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(asked, "Step 2: What is your favorite color?") {
		t.Errorf("asked %q", asked)
	}
}

func TestGoSDKResourcesAndPrompts(t *testing.T) {
	t.Parallel()
	for _, revision := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(revision, func(t *testing.T) {
			t.Parallel()
			resourcesAndPrompts(t, connectAt(t, revision, nil))
		})
	}
}

func resourcesAndPrompts(t *testing.T, cs *mcp.ClientSession) {
	ctx := t.Context()
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://template/42/data"})
	if err != nil || len(rr.Contents) != 1 || !strings.Contains(rr.Contents[0].Text, `"id":"42"`) {
		t.Errorf("template: %v %+v", err, rr)
	}
	rr, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://static-binary"})
	if err != nil || len(rr.Contents) != 1 || !strings.HasPrefix(string(rr.Contents[0].Blob), "\x89PNG") {
		t.Errorf("binary: %v %+v", err, rr)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://nope"}); err == nil {
		t.Error("an unknown resource reads")
	}
	gp, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_prompt_with_arguments", Arguments: map[string]string{"arg1": "a", "arg2": "b"}})
	if err != nil || len(gp.Messages) != 1 || gp.Messages[0].Content.(*mcp.TextContent).Text != "Prompt with arguments: arg1='a', arg2='b'" {
		t.Errorf("prompt: %v %+v", err, gp)
	}
	lp, err := cs.ListPrompts(ctx, nil)
	if err != nil || len(lp.Prompts) != 5 {
		t.Errorf("prompts: %v %+v", err, lp)
	}
}

// TestGoSDKStateless checks that the SDK, left to choose, discovers the stateless revision
// and calls tools without a session: a streaming function's progress, its result.
func TestGoSDKStateless(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var progress []float64
	cs := connectAt(t, "", &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, r.Params.Progress)
			mu.Unlock()
		},
	})
	ctx := t.Context()
	if got := cs.InitializeResult().ProtocolVersion; got != "2026-07-28" {
		t.Errorf("protocol %s", got)
	}
	if cs.ID() != "" {
		t.Errorf("a session: %q", cs.ID())
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_simple_text"})
	if err != nil || res.IsError || textOf(t, res) != "This is a simple text response for testing." {
		t.Errorf("test_simple_text: %v %+v", err, res)
	}
	params := &mcp.CallToolParams{Name: "count", Arguments: map[string]any{"n": 4}}
	params.SetProgressToken("p")
	res, err = cs.CallTool(ctx, params)
	if sc, _ := res.StructuredContent.(map[string]any); err != nil || len(sc["result"].([]any)) != 4 {
		t.Errorf("count: %v %+v", err, res)
	}
	// The SDK hands notifications to their handler on its own goroutines.
	testutil.Eventually(t, "the call's 4 progress notifications", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.Equal(progress, []float64{0.25, 0.5, 0.75, 1})
	})
}
