package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"

	"github.com/fnapi/fnapi/internal/bufpool"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/internal/calllink"
	"github.com/fnapi/fnapi/internal/jsonobject"
	"github.com/fnapi/fnapi/internal/schemalink"
	"github.com/fnapi/fnapi/internal/streamlink"
	"github.com/fnapi/fnapi/jsonrpc"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/transport"
	"github.com/invopop/jsonschema"
)

// tool is a function as tools/list shows it.
type tool struct {
	Name         string             `json:"name"`
	Description  string             `json:"description,omitempty"`
	InputSchema  any                `json:"inputSchema"` // a *jsonschema.Schema, or Options.InputSchemas' JSON
	OutputSchema *jsonschema.Schema `json:"outputSchema,omitempty"`
	Annotations  map[string]bool    `json:"annotations,omitempty"`
}

type toolInfo struct {
	json    json.RawMessage
	wrapped bool              // the result is not an object: structuredContent is {"result": value}
	content bool              // the result is []Content: it is the tool result's content
	headers map[string]string // the arguments' headers, by argument (paramheaders.go)
}

// toolOf describes f as a tool. MCP wants an object as structured content, so a result of
// another type (an array, a number, a string) is wrapped: outputSchema is an object whose
// property result has the function's result schema, and structuredContent {"result": value}
// ({} for null).
func (s *Server) toolOf(f *registry.Func) *toolInfo {
	if t, ok := s.tools.Load(f); ok {
		return t.(*toolInfo)
	}
	t := tool{Name: f.Name, Description: or(s.opts.Descriptions[f.Name], f.Description), InputSchema: schemalink.Of(f).Args}
	if in, ok := s.opts.InputSchemas[f.Name]; ok {
		t.InputSchema = in
	}
	info := &toolInfo{}
	switch rs := schemalink.Of(f).Result; {
	case rs == nil:
	case isContentSchema(rs):
		info.content = true
	case rs.Type == "object":
		t.OutputSchema = rs
	default:
		info.wrapped = true
		props := jsonschema.NewProperties()
		props.Set("result", rs)
		t.OutputSchema = &jsonschema.Schema{Type: "object", Properties: props}
	}
	if f.ReadOnly {
		t.Annotations = map[string]bool{"readOnlyHint": true}
	}
	info.json = objectSchemas(t)
	info.headers = paramHeadersOf(info.json)
	v, _ := s.tools.LoadOrStore(f, info)
	return v.(*toolInfo)
}

// objectSchemas encodes a tool with each boolean schema of a property or of items written as
// the object schema that means the same (true as {}, false as {"not": {}}): JSON Schema allows
// both, but clients (the TypeScript SDK) refuse a tool whose property schema is not an object.
func objectSchemas(t tool) json.RawMessage {
	b, _ := jsonrpc.Marshal(t)
	var v any
	if json.Unmarshal(b, &v) != nil {
		return b
	}
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, c := range t {
				if props, ok := c.(map[string]any); ok && (k == "properties" || k == "$defs") {
					for name, p := range props {
						props[name] = objectSchema(p)
					}
				}
				if k == "items" {
					t[k] = objectSchema(c)
				}
				walk(t[k])
			}
		case []any:
			for _, c := range t {
				walk(c)
			}
		}
	}
	walk(v)
	out, err := jsonrpc.Marshal(v)
	if err != nil {
		return b
	}
	return out
}

func objectSchema(v any) any {
	switch v {
	case true:
		return map[string]any{}
	case false:
		return map[string]any{"not": map[string]any{}}
	}
	return v
}

// isContentSchema reports whether a result schema is that of []Content.
func isContentSchema(s *jsonschema.Schema) bool {
	if s.Type != "array" || s.Items == nil || s.Items.Properties == nil {
		return false
	}
	for _, k := range []string{"type", "text", "data", "mimeType", "resource"} {
		if _, ok := s.Items.Properties.Get(k); !ok {
			return false
		}
	}
	return s.Items.Properties.Len() == 5
}

// listTools answers tools/list: the functions of the version the caller may call, a page at
// a time; the cursor is the name of the next page's first tool.
func (s *Server) listTools(ctx context.Context, x *transport.Exchange, params json.RawMessage) (any, *jsonrpc.Error) {
	var p struct {
		Cursor string `json:"cursor"`
	}
	if len(params) > 0 && json.Unmarshal(params, &p) != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params")
	}
	after := ""
	if p.Cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(p.Cursor)
		if err != nil {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid cursor")
		}
		after = string(b)
	}
	list := []json.RawMessage{}
	next := ""
	for _, f := range x.Funcs() {
		if f.Name < after || x.Allowed(ctx, f) != nil {
			continue
		}
		if len(list) == s.opts.PageSize {
			next = base64.RawURLEncoding.EncodeToString([]byte(f.Name))
			break
		}
		list = append(list, s.toolOf(f).json)
	}
	res := map[string]any{"tools": list}
	if next != "" {
		res["nextCursor"] = next
	}
	return res, nil
}

// callTool answers tools/call: the function's result as structuredContent and as text; its
// error as a result with isError, its text the error message (code and attributes).
func (s *Server) callTool(ctx context.Context, x *transport.Exchange, sess *session, a *answer, params json.RawMessage) (any, *jsonrpc.Error) {
	// One pass over params and one over the arguments, decoding only the name and _meta.
	var p struct {
		Name     string
		Progress any
	}
	var arguments, meta, token json.RawMessage
	var f *registry.Func
	var info *toolInfo
	if sess.stateless && !a.task { // read with the request (statelessSession); a task reads its own copy
		p.Name, arguments, token, f, info = sess.name, sess.arguments, sess.progress, sess.tool, sess.info
	} else {
		var buf [8]jsonobject.Member
		m, ok := jsonobject.ReadMembers(params, buf[:0])
		if !ok {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "tools/call needs params, an object")
		}
		p.Name, _ = jsonrpc.String(m.Get("name"))
		arguments, meta = m.Get("arguments"), m.Get("_meta")
		f = x.Lookup(p.Name)
	}
	if p.Name == "" {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "tools/call needs params.name")
	}
	var args map[string]json.RawMessage
	if arguments != nil && string(arguments) != "null" {
		args = make(map[string]json.RawMessage)
		if !jsonobject.Read(arguments, args, sess.stateless) { // a stateless request's body is lent (see post)
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "arguments must be an object")
		}
	}
	if meta != nil {
		var buf [4]jsonobject.Member
		mt, ok := jsonobject.ReadMembers(meta, buf[:0])
		if !ok {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "_meta must be an object")
		}
		token = mt.Get("progressToken")
	}
	if a.task {
		// A task has no stream: its progress would go nowhere, and a progress sink would give
		// its call a stream's deadline (StreamTimeout) instead of a call's, keeping every chunk.
		token = nil
	}
	if token != nil {
		var progress any // declared here: decoding into it allocates only with a token
		if json.Unmarshal(token, &progress) != nil {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "_meta must be an object")
		}
		p.Progress = progress
	}
	if f == nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "unknown tool: "+p.Name)
	}
	c, err := x.NewCall(f, args)
	if err != nil {
		return toolError(err), nil
	}
	var st *callState
	if sess.stateless && !a.task { // one call per session, which is the request's own
		st = &sess.own.state
	} else {
		st = new(callState)
	}
	*st = callState{a: a, s: sess, progress: p.Progress}
	var acc streamlink.State
	if f.Streaming && st.progress != nil {
		acc = streamlink.Start(f.Accumulator)
		calllink.Of(c).Sink = &progressSink{ctx: withState(ctx, st), st: st, acc: acc}
	}
	a.called = true
	v, err := x.CallWithValue(ctx, c, stateKey{}, st) // the function's context carries st (see stateOf)
	if e := missingError(err); e != nil && a.input != nil {
		return nil, e
	}
	if err != nil && a.task && errors.Is(err, apierr.Internal) && len(a.input.required()) == 0 {
		// The server failed, not the tool: the task fails with a protocol error.
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "internal error: the function failed (see the server's log)")
	}
	if err != nil {
		return toolError(err), nil
	}
	if acc != nil {
		v = acc.Result()
	}
	if info == nil {
		info = s.toolOf(f)
	}
	return toolResult(info, v, sess.stateless && !a.task, a.id)
}

// whole is a buffer of the pool whose unread bytes are the response to a tools/call written
// whole, its envelope with the tool's result (the result's value before them read): respond
// sends it and returns it. A pointer, it is an any without an allocation.
type whole bytes.Buffer

// toolResult is the tools/call result of a function's value, encoded once: the value as text
// content, and as structured content when it is an object or wrapped; complete marks it as a
// stateless request's answer (see complete), which it saves copying it. With the request's
// id it is the whole response (whole), written once: nothing copies it into an envelope. A
// task (id nil), which keeps its result, gets a json.RawMessage of its own.
func toolResult(info *toolInfo, v any, complete bool, id json.RawMessage) (any, *jsonrpc.Error) {
	if cs, ok := v.([]Content); ok && info.content {
		return map[string]any{"content": cs}, nil
	}
	buf := bufpool.Get()
	if err := jsonobject.Encode(buf, v); err != nil {
		bufpool.Put(buf)
		return toolError(apierr.New(apierr.Internal)), nil
	}
	b := buf.Bytes()
	var out []byte
	if n := 2*len(b) + 104; id != nil { // the response follows the value in its buffer
		buf.Grow(n + len(id) + 32)
		b = buf.Bytes()
		out = append(append(append(buf.AvailableBuffer(), `{"jsonrpc":"2.0","id":`...), id...), `,"result":`...) // as jsonrpc.Response
	} else { // a task keeps its result past the call: its bytes are its own, never a pool's
		defer bufpool.Put(buf)
		out = make([]byte, 0, n)
	}
	if complete {
		out = append(out, `{"resultType":"complete","content":[{"type":"text","text":`...)
	} else {
		out = append(out, `{"content":[{"type":"text","text":`...)
	}
	out = appendString(out, b)
	out = append(out, "}]"...)
	switch {
	case info.wrapped && string(b) == "null":
		out = append(out, `,"structuredContent":{}`...)
	case info.wrapped:
		out = append(out, `,"structuredContent":{"result":`...)
		out = append(append(out, b...), '}')
	case len(b) > 0 && b[0] == '{':
		out = append(out, `,"structuredContent":`...)
		out = append(out, b...)
	}
	out = append(out, '}')
	if id == nil {
		return json.RawMessage(out), nil
	}
	value := buf.Len()
	buf.Write(append(out, '}')) // in place, unless out outgrew the buffer
	buf.Next(value)
	return (*whole)(buf), nil
}

// toolError is the tools/call result of a function's error: isError, and the error message.
func toolError(err error) any {
	e := apierr.From(err)
	b, merr := json.Marshal(e)
	if merr != nil {
		b, _ = json.Marshal(apierr.New(e.Declaration()))
	}
	return map[string]any{"content": []Content{{Type: "text", Text: string(b)}}, "isError": true}
}

// progressSink receives a streaming function's chunks: it builds the result as a
// non-streaming call would, and sends a progress notification per chunk. The progress is the
// chunk's own "progress" member when it has one between 0 and 1 (total 1), else the count of
// chunks.
type progressSink struct {
	ctx   context.Context
	st    *callState
	acc   streamlink.State
	n     float64
	last  float64
	ratio bool
}

func (ps *progressSink) Send(ctx context.Context, chunk any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ps.acc.Add(chunk)
	ps.n++
	var m struct {
		Progress *float64 `json:"progress"`
	}
	if b, err := json.Marshal(chunk); err == nil && json.Unmarshal(b, &m) == nil && m.Progress != nil && *m.Progress >= 0 && *m.Progress <= 1 {
		if *m.Progress > ps.last || !ps.ratio {
			ps.ratio, ps.last = true, *m.Progress
			Progress(ps.ctx, ps.last, 1, "")
		}
		return nil
	}
	if !ps.ratio {
		Progress(ps.ctx, ps.n, 0, "")
	}
	return nil
}

// appendString appends JSON text b (valid UTF-8, as encoding/json writes it) to out as a JSON
// string.
func appendString(out, b []byte) []byte {
	const hex = "0123456789abcdef"
	out = append(out, '"')
	for _, c := range b {
		switch {
		case c == '"' || c == '\\':
			out = append(out, '\\', c)
		case c == '\n':
			out = append(out, '\\', 'n')
		case c < 0x20:
			out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			out = append(out, c)
		}
	}
	return append(out, '"')
}
