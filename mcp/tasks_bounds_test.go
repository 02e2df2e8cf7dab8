package mcp_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/internal/testutil"
	"github.com/fnapi/fnapi/mcp"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/stream"
)

// TestTaskProgressToken: a task whose call carries _meta.progressToken runs with the call's
// deadline (CallTimeout), as any task: its progress goes nowhere, so the token gives it no
// stream's deadline (StreamTimeout) and no sink keeping its chunks.
func TestTaskProgressToken(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	reg.MustRegister("follow", func(ctx context.Context, s *stream.Sender[int]) error {
		for i := 0; ; i++ {
			if err := s.Send(i); err != nil {
				return err
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Millisecond):
			}
		}
	}, registry.Requires(decl.Public), registry.ReadOnly())
	h, err := fnapi.New(reg, fnapi.WithMCP(mcp.Options{}), fnapi.WithCallTimeout(100*time.Millisecond), fnapi.WithStreamTimeout(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	s := serve(t, h)
	withToken := strings.Replace(taskMeta, `"_meta":{`, `"_meta":{"progressToken":1,`, 1)
	a := s.stateless("alice", "tools/call", "follow", `"name":"follow","arguments":{},`+withToken)
	id, _ := a.result()["taskId"].(string)
	if id == "" {
		t.Fatalf("no task: %s", a.body)
	}
	defer s.stateless("alice", "tasks/cancel", id, fmt.Sprintf(`"taskId":%q,%s`, id, taskMeta))
	var r map[string]any
	testutil.Until(t, 5*time.Second, "the task ends at CallTimeout (100 ms), not StreamTimeout (1 h)", func() error {
		r = s.stateless("alice", "tasks/get", id, fmt.Sprintf(`"taskId":%q,%s`, id, taskMeta)).result()
		if r["status"] == "working" {
			return errors.New("still working")
		}
		return nil
	})
	if r["status"] != "completed" || !strings.Contains(fmt.Sprint(r["result"]), "TIMEOUT") {
		t.Errorf("the task: %v, want completed with the tool's TIMEOUT", r)
	}
}

// TestTaskResultBound: a task keeps a result of at most Options.MaxTaskResultBytes (default
// 1 MiB) for tasks/get; a larger one fails the task with REQUEST-TOO-LARGE and its limit.
func TestTaskResultBound(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		max, limit int64 // the option, and the limit it makes
		big        int   // a result's length over the limit
	}{{0, 1 << 20, 1 << 20}, {200, 200, 200}} {
		t.Run(fmt.Sprint(c.limit), func(t *testing.T) {
			t.Parallel()
			reg := registry.New()
			reg.MustRegister("make", func(in struct {
				N int `json:"n"`
			}) string {
				return strings.Repeat("x", in.N)
			}, registry.Requires(decl.Public))
			h, err := fnapi.New(reg, fnapi.WithMCP(mcp.Options{Tasks: []string{"make"}, MaxTaskResultBytes: c.max}))
			if err != nil {
				t.Fatal(err)
			}
			s := serve(t, h)
			ended := func(n int) map[string]any {
				t.Helper()
				a := s.stateless("alice", "tools/call", "make", fmt.Sprintf(`"name":"make","arguments":{"n":%d},%s`, n, taskMeta))
				id, _ := a.result()["taskId"].(string)
				if id == "" {
					t.Fatalf("no task: %s", a.body)
				}
				var r map[string]any
				testutil.Eventually(t, "the task ends", func() bool {
					r = s.stateless("alice", "tasks/get", id, fmt.Sprintf(`"taskId":%q,%s`, id, taskMeta)).result()
					return r["status"] != "working"
				})
				return r
			}
			if r := ended(10); r["status"] != "completed" {
				t.Errorf("a small result: %v, want completed", r)
			}
			r := ended(c.big) // its tool result (as text and structured content) is over twice that
			e, _ := r["error"].(map[string]any)
			data, _ := e["data"].(map[string]any)
			if r["status"] != "failed" || r["result"] != nil || data["error"] != "REQUEST-TOO-LARGE" || data["limit"] != float64(c.limit) {
				t.Errorf("a task whose result is over %d bytes: status %v, error %v, want failed with REQUEST-TOO-LARGE and its limit", c.limit, r["status"], r["error"])
			}
		})
	}
}

// TestTaskAskFirstSlot: a call of Options.AskBeforeTask takes its task's slot before its
// function runs: when the caller's tasks are at Options.TasksPerCaller, the call is refused
// without running (it used to run, its effects done, and then answer "too many tasks", which
// a client retries). A round that ends with no task (a question the request does not answer)
// gives the slot back.
func TestTaskAskFirstSlot(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	var runs atomic.Int64
	reg.MustRegister("transfer", func(ctx context.Context, in struct {
		N int `json:"n"`
	}) (int64, error) {
		if in.N == 0 {
			if _, err := mcp.Ask(ctx, map[string]mcp.Input{"sure": {Method: "elicitation/create", Params: map[string]any{"message": "?"}}}); err != nil {
				return 0, err
			}
		}
		return runs.Add(1), nil
	}, registry.Requires(decl.Public))
	h, err := fnapi.New(reg, fnapi.WithMCP(mcp.Options{Tasks: []string{"transfer"}, AskBeforeTask: []string{"transfer"}, TasksPerCaller: 1}))
	if err != nil {
		t.Fatal(err)
	}
	s := serve(t, h)
	call := func(n int) answer {
		withElicitation := strings.Replace(taskMeta, `clientCapabilities":{`, `clientCapabilities":{"elicitation":{},`, 1)
		return s.stateless("alice", "tools/call", "transfer", fmt.Sprintf(`"name":"transfer","arguments":{"n":%d},%s`, n, withElicitation))
	}
	// A round that asks and is not answered: no task, and no slot kept.
	if a := call(0); a.result()["resultType"] != "input_required" {
		t.Fatalf("a round that asks: %s, want input_required", a.body)
	}
	// A call that ends without asking: a task already ended, kept TaskTTL, in the one slot.
	if a := call(1); a.result()["resultType"] != "task" || runs.Load() != 1 {
		t.Fatalf("first transfer: %s (runs %d), want a task, run once", a.body, runs.Load())
	}
	a := call(2)
	if a.errCode() != -32000 || runs.Load() != 1 {
		t.Errorf("second transfer, the caller's tasks full: %s, runs %d; want -32000 and the function not run", a.body, runs.Load())
	}
}
