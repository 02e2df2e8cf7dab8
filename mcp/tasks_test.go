package mcp_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/internal/testutil"
	"github.com/fnapi/fnapi/mcp"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/stream"
	"go.uber.org/zap"
)

// taskMeta declares the tasks extension.
const taskMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`

// TestTasks checks the tasks extension: a streaming function's call, for a client that
// declares the extension, answers a task at once; its owner polls it to its inlined result,
// cancels another; other tokens see neither; a caller (here, anonymous: its address) holds at most
// Options.TasksPerCaller; a client without the extension gets the result and -32021.
func TestTasks(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	public := registry.Requires(decl.Public)
	reg.MustRegister("count", func(ctx context.Context, in struct {
		N    int `json:"n"`
		Wait int `json:"wait_ms"`
	}, s *stream.Sender[int]) error {
		for i := 1; i <= in.N; i++ {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Duration(in.Wait) * time.Millisecond):
			}
			if err := s.Send(i); err != nil {
				return err
			}
		}
		return nil
	}, public, registry.ReadOnly())
	h, err := fnapi.New(reg, fnapi.WithMCP(mcp.Options{TasksPerCaller: 2}))
	if err != nil {
		t.Fatal(err)
	}
	s := serve(t, h)
	short, err := fnapi.New(reg, fnapi.WithMCP(mcp.Options{TaskTTL: time.Nanosecond}))
	if err != nil {
		t.Fatal(err)
	}
	kept := serve(t, short)
	call := func(key string, n, wait int, meta string) answer {
		return s.stateless(key, "tools/call", "count", fmt.Sprintf(`"name":"count","arguments":{"n":%d,"wait_ms":%d},%s`, n, wait, meta))
	}
	task := func(key, method, id, meta string) answer {
		return s.stateless(key, method, id, fmt.Sprintf(`"taskId":%q,%s`, id, meta))
	}
	if a := s.stateless("", "server/discover", "", meta); !strings.Contains(a.body, `"extensions":{"io.modelcontextprotocol/tasks":{}}`) {
		t.Errorf("discover: %s", a.body)
	}
	a := call("alice", 3, 1, taskMeta)
	r := a.result()
	id, _ := r["taskId"].(string)
	if r["resultType"] != "task" || r["status"] != "working" || id == "" || r["ttlMs"] != 3.6e6 {
		t.Fatalf("a task: %s", a.body)
	}
	testutil.Eventually(t, "the task completes", func() bool {
		return task("alice", "tasks/get", id, taskMeta).result()["status"] == "completed"
	})
	if a := task("alice", "tasks/get", id, taskMeta); !strings.Contains(a.body, `"result":{"content":[`) || !strings.Contains(a.body, `"structuredContent":{"result":[1,2,3]}`) {
		t.Errorf("the completed task: %s", a.body)
	}
	long := call("alice", 1000, 1000, taskMeta).result()["taskId"].(string)
	if a := call("alice", 1000, 1000, taskMeta); a.errCode() != -32000 {
		t.Errorf("a third task of the caller (2 kept): %s", a.body)
	}
	for _, m := range []string{"tasks/get", "tasks/cancel"} {
		if a := task("bob", m, long, taskMeta); a.errCode() != -32602 {
			t.Errorf("%s of another caller's task: %s", m, a.body)
		}
	}
	if a := task("alice", "tasks/cancel", long, taskMeta); a.errCode() != 0 || a.result()["resultType"] != "complete" {
		t.Errorf("tasks/cancel: %s", a.body)
	}
	testutil.Eventually(t, "the task is cancelled", func() bool {
		return task("alice", "tasks/get", long, taskMeta).result()["status"] == "cancelled"
	})
	// Without the extension: the result at once, and no task methods.
	if a := call("alice", 2, 0, meta); !strings.Contains(a.body, `"structuredContent":{"result":[1,2]}`) {
		t.Errorf("a call without the extension: %s", a.body)
	}
	if a := task("alice", "tasks/get", id, meta); a.status != http.StatusBadRequest || a.errCode() != mcp.CodeMissingCapability {
		t.Errorf("tasks/get without the extension: %d %s", a.status, a.body)
	}
	if a := task("alice", "tasks/get", "nope", taskMeta); a.errCode() != -32602 {
		t.Errorf("an unknown task: %s", a.body)
	}
	// Options.TaskTTL: a running task is kept however long it runs; an ended one that long.
	get := func(id string) answer {
		return kept.stateless("alice", "tasks/get", id, fmt.Sprintf(`"taskId":%q,%s`, id, taskMeta))
	}
	start := func(n, wait int) string {
		a := kept.stateless("alice", "tools/call", "count", fmt.Sprintf(`"name":"count","arguments":{"n":%d,"wait_ms":%d},%s`, n, wait, taskMeta))
		id, _ := a.result()["taskId"].(string)
		return id
	}
	running := start(1000, 1000)
	if a := get(running); a.result()["status"] != "working" {
		t.Errorf("a running task past TaskTTL: %s", a.body)
	}
	ended := start(1, 0)
	testutil.Eventually(t, "an ended task is dropped past TaskTTL", func() bool { return get(ended).errCode() == -32602 })
	kept.stateless("alice", "tasks/cancel", running, fmt.Sprintf(`"taskId":%q,%s`, running, taskMeta))
}

// TestTasksRequired: a function of Options.TasksRequired runs as a task for a client of the
// extension, and is refused (400, -32021, requiredCapabilities) to a stateless client without
// it; a task whose function panics (INTERNAL-ERROR) fails with a protocol error, while a
// function's own error completes it with isError.
func TestTasksRequired(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	public := registry.Requires(decl.Public)
	reg.MustRegister("job", func() string { return "done" }, public)
	reg.MustRegister("crash", func() string { panic("on purpose") }, public)
	reg.MustRegister("refuse", func() error { return apierr.New(apierr.Conflict) }, public)
	h, err := fnapi.New(reg, fnapi.WithLogger(zap.NewNop()), fnapi.WithMCP(mcp.Options{TasksRequired: []string{"job"}, Tasks: []string{"crash", "refuse"}}))
	if err != nil {
		t.Fatal(err)
	}
	s := serve(t, h)
	call := func(name, meta string) answer {
		return s.stateless("", "tools/call", name, fmt.Sprintf(`"name":%q,"arguments":{},%s`, name, meta))
	}
	if a := call("job", meta); a.status != http.StatusBadRequest || a.errCode() != mcp.CodeMissingCapability ||
		!strings.Contains(a.body, `"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}`) {
		t.Errorf("a required task without the extension: %d %s", a.status, a.body)
	}
	ended := func(name string) map[string]any {
		t.Helper()
		a := call(name, taskMeta)
		id, _ := a.result()["taskId"].(string)
		if id == "" {
			t.Fatalf("%s: no task: %s", name, a.body)
		}
		var r map[string]any
		testutil.Eventually(t, name+" ends", func() bool {
			r = s.stateless("", "tasks/get", id, fmt.Sprintf(`"taskId":%q,%s`, id, taskMeta)).result()
			return r["status"] != "working"
		})
		return r
	}
	if r := ended("job"); r["status"] != "completed" {
		t.Errorf("job: %v", r)
	}
	if r := ended("crash"); r["status"] != "failed" || r["result"] != nil || r["error"] == nil {
		t.Errorf("a task whose function panicked: %v, want failed with an error", r)
	}
	if r := ended("refuse"); r["status"] != "completed" || r["result"].(map[string]any)["isError"] != true {
		t.Errorf("a task whose function answered an error: %v, want completed with isError", r)
	}
}

// TestTaskInput: a task whose function asks its client (mcp.Ask) waits input_required with
// the questions on tasks/get; tasks/update answering part of them keeps it waiting on the
// rest; answering the rest runs the function again with every answer, to its result.
func TestTaskInput(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	reg.MustRegister("ask", func(ctx context.Context) (string, error) {
		q := mcp.Input{Method: "elicitation/create", Params: map[string]any{"message": "?"}}
		a, err := mcp.Ask(ctx, map[string]mcp.Input{"one": q, "two": q})
		if err != nil {
			return "", err
		}
		return string(a["one"]) + string(a["two"]), nil
	}, registry.Requires(decl.Public))
	h, err := fnapi.New(reg, fnapi.WithMCP(mcp.Options{Tasks: []string{"ask"}}))
	if err != nil {
		t.Fatal(err)
	}
	s := serve(t, h)
	withElicitation := strings.Replace(taskMeta, `clientCapabilities":{`, `clientCapabilities":{"elicitation":{},`, 1)
	a := s.stateless("", "tools/call", "ask", `"name":"ask","arguments":{},`+withElicitation)
	id, _ := a.result()["taskId"].(string)
	if id == "" {
		t.Fatalf("no task: %s", a.body)
	}
	get := func() map[string]any {
		return s.stateless("", "tasks/get", id, fmt.Sprintf(`"taskId":%q,%s`, id, withElicitation)).result()
	}
	update := func(responses string) {
		t.Helper()
		a := s.stateless("", "tasks/update", id, fmt.Sprintf(`"taskId":%q,"inputResponses":%s,%s`, id, responses, withElicitation))
		if a.status != 200 || a.result()["resultType"] != "complete" {
			t.Fatalf("tasks/update: %d %s", a.status, a.body)
		}
	}
	var r map[string]any
	testutil.Eventually(t, "the task waits for input", func() bool { r = get(); return r["status"] != "working" })
	if reqs, _ := r["inputRequests"].(map[string]any); r["status"] != "input_required" || len(reqs) != 2 {
		t.Fatalf("tasks/get: %v, want input_required with two questions", r)
	}
	update(`{"one":{"action":"accept","content":{"x":1}}}`)
	if r = get(); r["status"] != "input_required" || len(r["inputRequests"].(map[string]any)) != 1 || r["inputRequests"].(map[string]any)["two"] == nil {
		t.Fatalf("after a partial update: %v, want input_required on two alone", r)
	}
	update(`{"two":{"action":"decline"}}`)
	testutil.Eventually(t, "the task completes", func() bool { r = get(); return r["status"] == "completed" })
	if !strings.Contains(fmt.Sprint(r["result"]), `{"action":"accept","content":{"x":1}}{"action":"decline"}`) {
		t.Fatalf("result: %v", r["result"])
	}
}

// TestTaskAskFirst: a function of Options.AskBeforeTask asks its client in input_required
// rounds before it becomes a task: the first round answers the question, no task; the round
// carrying the answer answers a task (no requestState), which runs on with it, a later
// question waiting in the task. A function that asks nothing is a task already ended; one
// whose client cannot answer gets -32021 and no task.
func TestTaskAskFirst(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	q := mcp.Input{Method: "elicitation/create", Params: map[string]any{"message": "?"}}
	reg.MustRegister("ask", func(ctx context.Context) (string, error) {
		name, err := mcp.Ask(ctx, map[string]mcp.Input{"name": q})
		if err != nil {
			return "", err
		}
		more, err := mcp.Ask(ctx, map[string]mcp.Input{"more": q})
		if err != nil {
			return "", err
		}
		return string(name["name"]) + string(more["more"]), nil
	}, registry.Requires(decl.Public))
	reg.MustRegister("quiet", func() string { return "said nothing" }, registry.Requires(decl.Public))
	h, err := fnapi.New(reg, fnapi.WithMCP(mcp.Options{TasksRequired: []string{"ask", "quiet"}, AskBeforeTask: []string{"ask", "quiet"}}))
	if err != nil {
		t.Fatal(err)
	}
	s := serve(t, h)
	withElicitation := strings.Replace(taskMeta, `clientCapabilities":{`, `clientCapabilities":{"elicitation":{},`, 1)
	a := s.stateless("", "tools/call", "ask", `"name":"ask","arguments":{},`+withElicitation)
	r := a.result()
	state, _ := r["requestState"].(string)
	if reqs, _ := r["inputRequests"].(map[string]any); r["resultType"] != "input_required" || reqs["name"] == nil || state == "" || r["taskId"] != nil {
		t.Fatalf("round 1: %s, want input_required asking name, no task", a.body)
	}
	a = s.stateless("", "tools/call", "ask", fmt.Sprintf(`"name":"ask","arguments":{},"inputResponses":{"name":{"action":"accept","content":{"n":"Alice"}}},"requestState":%q,%s`, state, withElicitation))
	r = a.result()
	id, _ := r["taskId"].(string)
	if r["resultType"] != "task" || id == "" || r["requestState"] != nil || r["inputRequests"] != nil {
		t.Fatalf("round 2: %s, want a task", a.body)
	}
	get := func(id string) map[string]any {
		return s.stateless("", "tasks/get", id, fmt.Sprintf(`"taskId":%q,%s`, id, withElicitation)).result()
	}
	testutil.Eventually(t, "the task waits for its second answer", func() bool { r = get(id); return r["status"] == "input_required" })
	if reqs, _ := r["inputRequests"].(map[string]any); len(reqs) != 1 || reqs["more"] == nil {
		t.Fatalf("tasks/get: %v, want input_required on more", r)
	}
	if a := s.stateless("", "tasks/update", id, fmt.Sprintf(`"taskId":%q,"inputResponses":{"more":{"action":"decline"}},%s`, id, withElicitation)); a.status != 200 {
		t.Fatalf("tasks/update: %d %s", a.status, a.body)
	}
	testutil.Eventually(t, "the task completes", func() bool { r = get(id); return r["status"] == "completed" })
	if !strings.Contains(fmt.Sprint(r["result"]), `{"action":"accept","content":{"n":"Alice"}}{"action":"decline"}`) {
		t.Fatalf("result: %v, want both answers", r["result"])
	}
	a = s.stateless("", "tools/call", "quiet", `"name":"quiet","arguments":{},`+taskMeta)
	if id, _ := a.result()["taskId"].(string); id == "" || get(id)["status"] != "completed" {
		t.Errorf("a function that asks nothing: %s, want a task ended", a.body)
	}
	if a := s.stateless("", "tools/call", "ask", `"name":"ask","arguments":{},`+taskMeta); a.status != http.StatusBadRequest || a.errCode() != mcp.CodeMissingCapability {
		t.Errorf("a client that cannot answer: %d %s, want 400 and -32021", a.status, a.body)
	}
}
