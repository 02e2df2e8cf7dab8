package mcp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/internal/testutil"
	"github.com/fnapi/fnapi/mcp"
	"github.com/fnapi/fnapi/registry"
)

// TestTaskMaxResultBytes: Options.MaxTaskResultBytes sets the bound on a task's kept result.
func TestTaskMaxResultBytes(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	reg.MustRegister("make", func(in struct {
		N int `json:"n"`
	}) string {
		return strings.Repeat("x", in.N)
	}, registry.Requires(decl.Public))
	h, err := fnapi.New(reg, fnapi.WithMCP(mcp.Options{Tasks: []string{"make"}, MaxTaskResultBytes: 200}))
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
	r := ended(200)
	e, _ := r["error"].(map[string]any)
	data, _ := e["data"].(map[string]any)
	if r["status"] != "failed" || data["error"] != "REQUEST-TOO-LARGE" || data["limit"] != 200.0 {
		t.Errorf("a result over 200 bytes: %v, want failed with REQUEST-TOO-LARGE, limit 200", r)
	}
}
