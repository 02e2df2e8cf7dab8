package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/fnapi/fnapi/apierr"
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
	status    string // working, input_required, completed, failed, cancelled
	updated   time.Time
	result    any
	err       *jsonrpc.Error
	cancelled bool
	input     *inputs          // the answers of the task's client so far
	pending   map[string]Input // the questions waiting for tasks/update, while input_required
	resume    chan struct{}    // closed when the last pending question is answered
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

// drop forgets the task id: a slot taken for a call that did not become a task.
func (ts *tasks) drop(id string) {
	ts.mu.Lock()
	delete(ts.m, id)
	ts.mu.Unlock()
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
	return !t.running() && now.Sub(t.updated) > ttl
}

// running reports whether the task has not ended: it works or waits for input.
func (t *task) running() bool { return t.status == "working" || t.status == "input_required" }

// wait parks the task on the questions asked until tasks/update answers them all, and
// reports true; false when ctx ends first or the questions wait longer than maxWait.
func (t *task) wait(ctx context.Context, asked map[string]Input, maxWait time.Duration) bool {
	t.mu.Lock()
	t.status, t.pending, t.updated = "input_required", asked, time.Now()
	resume := make(chan struct{})
	t.resume = resume
	t.mu.Unlock()
	timer := time.NewTimer(maxWait)
	defer timer.Stop()
	select {
	case <-resume:
		return true
	case <-ctx.Done():
	case <-timer.C:
	}
	t.mu.Lock()
	t.cancelled = true // ends cancelled: nobody answered
	t.mu.Unlock()
	return false
}

// update gives the task the client's answers to its pending questions, by key (other keys
// are ignored), and resumes it once none is pending.
func (t *task) update(responses map[string]json.RawMessage) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.status != "input_required" {
		return
	}
	for k, v := range responses {
		if _, ok := t.pending[k]; ok {
			t.input.answer(k, v)
			delete(t.pending, k)
		}
	}
	if len(t.pending) == 0 {
		t.status, t.pending, t.updated = "working", nil, time.Now()
		close(t.resume)
	}
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
	InputRequests map[string]any `json:"inputRequests,omitempty"`
	Result        any            `json:"result,omitempty"`
	Error         *jsonrpc.Error `json:"error,omitempty"`
}

func (t *task) view(ttl time.Duration, resultType string) taskView {
	t.mu.Lock()
	defer t.mu.Unlock()
	if resultType == "task" { // the task just made: its questions and result are tasks/get's
		return taskView{resultType, t.id, t.status, t.created.UTC().Format(time.RFC3339Nano),
			t.updated.UTC().Format(time.RFC3339Nano), ttl.Milliseconds(), nil, nil, nil}
	}
	var requests map[string]any
	if len(t.pending) > 0 {
		requests = make(map[string]any, len(t.pending))
		for k, q := range t.pending {
			requests[k] = map[string]any{"method": q.Method, "params": q.Params}
		}
	}
	return taskView{resultType, t.id, t.status, t.created.UTC().Format(time.RFC3339Nano),
		t.updated.UTC().Format(time.RFC3339Nano), ttl.Milliseconds(), requests, t.result, t.err}
}

// wantsTask reports whether a stateless tools/call runs as a task: its client declared the
// extension, and the function is a streaming one or named in Options.Tasks or TasksRequired.
// A function of TasksRequired called by a stateless client that did not declare the extension
// is CodeMissingCapability.
func (s *Server) wantsTask(x *transport.Exchange, sess *session) (bool, *jsonrpc.Error) {
	if !sess.stateless {
		return false, nil
	}
	declared := bytes.Contains(sess.caps, []byte(TasksExtension)) && declares(sess.caps)
	if !declared && len(s.opts.TasksRequired) == 0 {
		return false, nil
	}
	name, f := sess.name, sess.tool // a stateless request's, read with it
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

// errTooManyTasks answers a call that would be a task past the bounds.
var errTooManyTasks = jsonrpc.NewError(jsonrpc.CodeServerError, "too many tasks of this caller: wait for one to end, or cancel one")

// startTask runs a tools/call as a task and answers the task; a call of Options.AskBeforeTask
// first runs until its function asks (see askFirst).
func (s *Server) startTask(ctx context.Context, x *transport.Exchange, sess *session, a *answer, params json.RawMessage) (any, *jsonrpc.Error) {
	now := time.Now()
	cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	t := &task{id: uuid.NewString(), owner: x.TokenDigest(), caller: sess.caller, created: now, updated: now, status: "working", cancel: cancel}
	first := slices.Contains(s.opts.AskBeforeTask, sess.name)
	// The task's slot is taken before the function runs, even for a call of AskBeforeTask that
	// may end up no task (askFirst gives the slot back then): a function must never run, its
	// effects done, for its call to answer "too many tasks", which a client retries.
	if !s.tasks.start(t) {
		cancel()
		return nil, errTooManyTasks
	}
	a.called = true // the function's call counts against the rate limit
	// No stream: a task's progress goes nowhere. Its questions (Ask) park it input_required
	// until tasks/update answers them; then the function runs again from its start with the
	// answers, as a stateless call does. Unanswered for Options.StateTTL, it ends cancelled.
	t.input = &inputs{caps: slices.Clone(sess.caps), answers: map[string]json.RawMessage{}}
	params = slices.Clone(params) // the request's buffer is reused once it is answered
	if a.input != nil {
		maps.Copy(t.input.answers, a.input.answers)
	}
	run := &answer{task: true, input: t.input}
	// The task's own session: the request's points into its body, which is lent (see post).
	sess = &session{stateless: true, caller: sess.caller, protocol: sess.protocol, level: sess.level, method: sess.method, name: sess.name}
	var pre chan preTask // the run's end before it became a task (first)
	tasked := make(chan struct{})
	if first {
		pre = make(chan preTask, 1)
		t.input.answered = func() { close(tasked) }
	} else {
		close(tasked)
	}
	go func() {
		defer cancel()
		for {
			res, err := s.callTool(cctx, x, sess, run, params)
			asked := t.input.takeAsked()
			if !t.input.isTask(tasked) { // not a task yet: the request answers
				pre <- preTask{res, err, asked}
				return
			}
			if len(asked) == 0 || cctx.Err() != nil || !t.wait(cctx, asked, s.opts.StateTTL) {
				t.end(s.keep(res, err))
				return
			}
		}
	}()
	if !first {
		return t.view(s.opts.TaskTTL, "task"), nil
	}
	return s.askFirst(ctx, t, a, tasked, pre)
}

// isTask reports whether the call became a task (tasked closed, which answered does under
// in.mu); if not, it never will.
func (in *inputs) isTask(tasked <-chan struct{}) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	select {
	case <-tasked:
		return true
	default:
		in.answered = nil
		return false
	}
}

// preTask is how the run of a call of Options.AskBeforeTask ended before it became a task.
type preTask struct {
	res   any
	err   *jsonrpc.Error
	asked map[string]Input
}

// askFirst answers a call of Options.AskBeforeTask: the task, once its function asked a
// question the request answers (tasked closed); or, when the function ended first, the
// questions it asked as an input_required result (post makes it from a.input), its protocol
// error, or a task already ended with its result.
func (s *Server) askFirst(ctx context.Context, t *task, a *answer, tasked <-chan struct{}, pre <-chan preTask) (any, *jsonrpc.Error) {
	select {
	case <-ctx.Done(): // the client went away: so does the call, and its slot
		t.cancel()
		s.tasks.drop(t.id)
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "the request was cancelled")
	case <-tasked: // its slot was taken before it ran (see startTask)
		return t.view(s.opts.TaskTTL, "task"), nil
	case p := <-pre:
		switch {
		case len(p.asked) > 0: // no task: the slot is free again
			s.tasks.drop(t.id)
			a.input.mu.Lock()
			a.input.asked = p.asked
			a.input.mu.Unlock()
			return struct{}{}, nil
		case p.err != nil:
			s.tasks.drop(t.id)
			return nil, p.err
		}
		t.end(s.keep(p.res, nil))
		return t.view(s.opts.TaskTTL, "task"), nil
	}
}

// keep is what a task keeps of how its call ended: a result whose JSON is over
// Options.MaxTaskResultBytes is not kept, and the task fails with REQUEST-TOO-LARGE and its
// limit (a protocol error, as tasks/get answers a failed task).
func (s *Server) keep(res any, err *jsonrpc.Error) (any, *jsonrpc.Error) {
	if err != nil || res == nil {
		return res, err
	}
	b, ok := res.(json.RawMessage) // a tool's result (see toolResult)
	if !ok {
		var mErr error
		if b, mErr = jsonrpc.Marshal(res); mErr != nil {
			return res, nil
		}
	}
	if int64(len(b)) > s.opts.MaxTaskResultBytes {
		return nil, jsonrpc.FromAPI(apierr.New(apierr.RequestTooLarge, "limit", s.opts.MaxTaskResultBytes))
	}
	return res, nil
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
		if t.running() {
			t.cancelled = true
		}
		t.mu.Unlock()
		t.cancel()
		return struct{}{}, nil
	}
	var u struct {
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}
	if json.Unmarshal(req.Params, &u) != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "inputResponses must be an object of the client's results")
	}
	for k, v := range u.InputResponses {
		if len(v) == 0 || v[0] != '{' {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "inputResponses."+k+" must be an object, the client's result")
		}
	}
	t.update(u.InputResponses)
	return struct{}{}, nil
}
