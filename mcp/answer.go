package mcp

import (
	"context"
	"encoding/json"
	"github.com/fnapi/fnapi/internal/bufpool"
	"net/http"
	"strings"
	"sync"

	"github.com/fnapi/fnapi/jsonrpc"
	"github.com/fnapi/fnapi/stream"
)

// answer writes the answer of one POST: a JSON body, or, from the first notification a call
// sends (progress, a log message), a stream of Server-Sent Events that ends with the response.
// It is safe for concurrent use.
type answer struct {
	w http.ResponseWriter
	// r is the request: whether its client accepts text/event-stream is read at the first
	// notification, not on every request (nil: a task's, which never streams)
	r *http.Request

	id     json.RawMessage // the request's (see toolResult)
	input  *inputs         // a stateless request's questions and answers (see Ask); nil in a session
	called bool            // a function was called for it: the call counted against the rate limits
	task   bool            // the call runs as a task: INTERNAL-ERROR fails the task

	sse  bool
	done bool
	mu   sync.Mutex
}

func newAnswer(w http.ResponseWriter, r *http.Request) *answer {
	return &answer{w: w, r: r}
}

func canStream(r *http.Request) bool { return strings.Contains(reqHeader(r, "Accept"), stream.SSE) }

// notify sends a notification on the answer's stream; it reports false when it cannot (the
// client does not accept streams, or the response was sent).
func (a *answer) notify(method string, params any) bool {
	return a.request(nil, method, params)
}

// request sends a request of the server (with id) or a notification (id nil) on the answer's
// stream, as notify.
func (a *answer) request(id json.RawMessage, method string, params any) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done || a.r == nil || !canStream(a.r) {
		return false
	}
	p, err := jsonrpc.Marshal(params)
	if err != nil {
		return false
	}
	if !a.sse {
		a.sse = true
		h := a.w.Header()
		h.Set("Content-Type", stream.SSE)
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Accel-Buffering", "no")
		a.w.WriteHeader(http.StatusOK)
	}
	a.event(jsonrpc.Request{JSONRPC: jsonrpc.Version, ID: id, Method: method, Params: p})
	return true
}

// reply sends the response, which ends the answer.
func (a *answer) reply(resp jsonrpc.Response) {
	buf := bufpool.Get()
	defer bufpool.Put(buf)
	b, err := resp.AppendJSON(buf.AvailableBuffer())
	if err != nil {
		b, _ = withID(&jsonrpc.Request{ID: resp.ID}, jsonrpc.NewError(jsonrpc.CodeInternalError, "internal error")).AppendJSON(b[:0])
	}
	buf.Write(b) // keeps what b grew to for the next answer: in place once it fits
	a.replyWhole(buf.Bytes())
}

var jsonType = []string{"application/json"}

// replyWhole sends a response already encoded (reply, toolResult), which ends the answer: as
// the last event of a stream, else as the JSON body.
func (a *answer) replyWhole(b []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done {
		return
	}
	a.done = true
	if a.sse {
		a.write(b)
		return
	}
	a.w.Header()["Content-Type"] = jsonType
	a.w.WriteHeader(http.StatusOK)
	_, _ = a.w.Write(b)
}

// status sends the response with an HTTP status other than 200, unless the answer is a
// stream already; it reports whether it did.
func (a *answer) status(code int, resp jsonrpc.Response) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done || a.sse {
		return false
	}
	a.done = true
	httpError(a.w, code, resp)
	return true
}

// event writes one message as an event and flushes it.
func (a *answer) event(v any) {
	var b []byte
	var err error
	if r, ok := v.(jsonrpc.Response); ok {
		b, err = r.AppendJSON(nil)
	} else {
		b, err = jsonrpc.Marshal(v)
	}
	if err == nil {
		a.write(b)
	}
}

// write writes one message, encoded, as an event and flushes it.
func (a *answer) write(b []byte) {
	var sb strings.Builder
	sb.WriteString("event: message\ndata: ")
	sb.Write(b)
	sb.WriteString("\n\n")
	_, _ = a.w.Write([]byte(sb.String()))
	_ = http.NewResponseController(a.w).Flush()
}

// callState is what a tool's function reaches through its context: where to send
// notifications, and the request's progress token.
type callState struct {
	a        *answer
	s        *session
	progress any // the progressToken; nil when the client asked for no progress
}

type stateKey struct{}

func withState(ctx context.Context, st *callState) context.Context {
	return context.WithValue(ctx, stateKey{}, st)
}

func stateOf(ctx context.Context) *callState {
	st, _ := ctx.Value(stateKey{}).(*callState)
	return st
}

// The log levels of MCP (RFC 5424's), least severe first.
var levels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

func levelOf(name string) int {
	for i, l := range levels {
		if l == name {
			return i
		}
	}
	return -1
}

// Log sends a log message (notifications/message) to the MCP client whose tool call ctx
// belongs to, when the client asked for messages of that level or more severe
// (logging/setLevel; default: all). level is one of debug, info, notice, warning, error,
// critical, alert, emergency; data is any JSON value. It reports whether the message was
// sent: false outside an MCP call, or for a client that does not accept streams.
func Log(ctx context.Context, level, logger string, data any) bool {
	st := stateOf(ctx)
	l := levelOf(level)
	if st == nil || l < 0 || st.s == nil || l < st.s.logLevel() { // no session: a resource or prompt
		return false
	}
	p := map[string]any{"level": level, "data": data}
	if logger != "" {
		p["logger"] = logger
	}
	return st.a.notify("notifications/message", p)
}

// Progress sends a progress notification to the MCP client whose tool call ctx belongs to, when
// it asked for progress (a progressToken). progress must grow from one notification to the
// next; total is 0 when unknown. A streaming function's chunks send progress by themselves.
func Progress(ctx context.Context, progress, total float64, message string) bool {
	st := stateOf(ctx)
	if st == nil || st.progress == nil {
		return false
	}
	p := map[string]any{"progressToken": st.progress, "progress": progress}
	if total > 0 {
		p["total"] = total
	}
	if message != "" {
		p["message"] = message
	}
	return st.a.notify("notifications/progress", p)
}
