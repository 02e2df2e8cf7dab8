package mcp

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/fnapi/fnapi/internal/jsonobject"
	"github.com/fnapi/fnapi/jsonrpc"
	"github.com/fnapi/fnapi/transport"
	"github.com/google/uuid"
)

// TasksExtension names the tasks extension of 2026-07-28 in capabilities.extensions.
const TasksExtension = "io.modelcontextprotocol/tasks"

// task is one tool call running as a task: its owner's, kept Options.TaskTTL once ended.
type task struct {
	id      string
	owner   [32]byte
	caller  string
	created time.Time
	cancel  context.CancelFunc

	mu        sync.Mutex
	status    string // working, completed, failed, cancelled
	updated   time.Time
	result    any
	err       *jsonrpc.Error
	cancelled bool
}

// tasks holds the tasks of one endpoint, bounded per caller and in all.
type tasks struct {
	perCaller, max int
	ttl            time.Duration

	mu sync.Mutex
	m  map[string]*task
}

// start records a task of caller, or reports false past the bounds (once ended tasks past
// their time are dropped).
func (ts *tasks) start(t *task) bool {
	now := time.Now()
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.m == nil {
		ts.m = make(map[string]*task)
	}
	mine := 0
	for id, o := range ts.m {
		if o.expired(now, ts.ttl) {
			delete(ts.m, id)
		} else if o.caller == t.caller {
			mine++
		}
	}
	if mine >= ts.perCaller || len(ts.m) >= ts.max {
		return false
	}
	ts.m[t.id] = t
	return true
}

// get returns the task id of owner, nil when there is none (never was, expired, another's).
func (ts *tasks) get(id string, owner [32]byte) *task {
	ts.mu.Lock()
	t := ts.m[id]
	ts.mu.Unlock()
	if t == nil || t.owner != owner || t.expired(time.Now(), ts.ttl) {
		return nil
	}
	return t
}

func (t *task) expired(now time.Time, ttl time.Duration) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.status != "working" && now.Sub(t.updated) > ttl
}

// end records how the call ended.
func (t *task) end(res any, err *jsonrpc.Error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.updated = time.Now()
	switch {
	case t.cancelled:
		t.status = "cancelled"
	case err != nil:
		t.status, t.err = "failed", err
	default:
		t.status, t.result = "completed", res
	}
}

// taskView is a task as tasks/get answers it (and, without result, as tools/call does).
type taskView struct {
	ResultType    string         `json:"resultType"`
	TaskID        string         `json:"taskId"`
	Status        string         `json:"status"`
	CreatedAt     string         `json:"createdAt"`
	LastUpdatedAt string         `json:"lastUpdatedAt"`
	TTLMs         int64          `json:"ttlMs"`
	Result        any            `json:"result,omitempty"`
	Error         *jsonrpc.Error `json:"error,omitempty"`
}

func (t *task) view(ttl time.Duration, resultType string) taskView {
	t.mu.Lock()
	defer t.mu.Unlock()
	return taskView{resultType, t.id, t.status, t.created.UTC().Format(time.RFC3339Nano),
		t.updated.UTC().Format(time.RFC3339Nano), ttl.Milliseconds(), t.result, t.err}
}

// wantsTask reports whether a stateless tools/call runs as a task: its client declared the
// extension, and the function is a streaming one or named in Options.Tasks or TasksRequired.
// A function of TasksRequired called by a stateless client that did not declare the extension
// is CodeMissingCapability.
func (s *Server) wantsTask(x *transport.Exchange, sess *session, params json.RawMessage) (bool, *jsonrpc.Error) {
	if !sess.stateless {
		return false, nil
	}
	declared := declares(sess.caps)
	if !declared && len(s.opts.TasksRequired) == 0 {
		return false, nil
	}
	m := map[string]json.RawMessage{}
	if !jsonobject.Read(params, m, false) {
		return false, nil
	}
	name, _ := jsonrpc.String(m["name"])
	f := x.Lookup(name)
	if f == nil {
		return false, nil
	}
	required := slices.Contains(s.opts.TasksRequired, name)
	if !declared {
		if required {
			return false, missingTasks("the tool " + name + " runs only as a task: declare the extension " + TasksExtension)
		}
		return false, nil
	}
	return f.Streaming || required || slices.Contains(s.opts.Tasks, name), nil
}

// missingTasks is the error of a request that needs the tasks extension its client did not
// declare.
func missingTasks(msg string) *jsonrpc.Error {
	e := jsonrpc.NewError(CodeMissingCapability, msg)
	e.Data = map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{TasksExtension: map[string]any{}}}}
	return e
}

// declares reports whether client capabilities declare the tasks extension.
func declares(caps json.RawMessage) bool {
	var c struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	return json.Unmarshal(caps, &c) == nil && c.Extensions[TasksExtension] != nil
}

// startTask runs a tools/call as a task and answers the task.
func (s *Server) startTask(ctx context.Context, x *transport.Exchange, sess *session, a *answer, params json.RawMessage) (any, *jsonrpc.Error) {
	now := time.Now()
	cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	t := &task{id: uuid.NewString(), owner: x.TokenDigest(), caller: sess.caller, created: now, updated: now, status: "working", cancel: cancel}
	if !s.tasks.start(t) {
		cancel()
		return nil, jsonrpc.NewError(jsonrpc.CodeServerError, "too many tasks of this caller: wait for one to end, or cancel one")
	}
	a.called = true            // the function's call counts against the rate limit
	run := &answer{task: true} // no stream: a task's progress and questions go nowhere
	go func() {
		defer cancel()
		res, err := s.callTool(cctx, x, sess, run, params)
		t.end(res, err)
	}()
	return t.view(s.opts.TaskTTL, "task"), nil
}

// taskMethod answers tasks/get, tasks/cancel and tasks/update.
func (s *Server) taskMethod(x *transport.Exchange, sess *session, req *jsonrpc.Request) (any, *jsonrpc.Error) {
	if !declares(sess.caps) {
		return nil, missingTasks("the client did not declare the extension " + TasksExtension)
	}
	var p struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(req.Params, &p)
	t := s.tasks.get(p.TaskID, x.TokenDigest())
	if t == nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "task not found: "+p.TaskID)
	}
	switch req.Method {
	case "tasks/get":
		return t.view(s.opts.TaskTTL, "complete"), nil
	case "tasks/cancel":
		t.mu.Lock()
		if t.status == "working" {
			t.cancelled = true
		}
		t.mu.Unlock()
		t.cancel()
		return struct{}{}, nil
	}
	return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "the task waits for no input")
}
