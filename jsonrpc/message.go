package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/internal/jsonobject"
)

// Version is the value of every message's "jsonrpc" member.
const Version = "2.0"

// The error codes of JSON-RPC 2.0, and the one this package uses for a function's own errors.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	CodeServerError    = -32000
)

// Request is a request or a notification (no ID).
type Request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// IsNotification reports that the request has no id, and gets no answer.
func (r *Request) IsNotification() bool { return r.ID == nil }

// Response answers a request: Result, or Error.
type Response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Error is the error member of a response.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// NewError returns an error with a code and message.
func NewError(code int, message string) *Error { return &Error{Code: code, Message: message} }

// null is the id of a response to a request whose id could not be read.
var null = json.RawMessage("null")

// Parse reads a body: one request, or a batch of at most maxItems. Each item that is not a
// valid request comes back as an *Error at its index in errs (with the item's id when one could
// be read), so that a batch answers the others. A body that is not JSON, an empty batch, or a
// batch over maxItems is one error for the whole body.
func Parse(body []byte, maxItems int) (reqs []Request, errs []*Error, batch bool, err *Error) {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '[' {
		r, e := parseOne(body)
		if e != nil && e.Code == CodeParseError {
			return nil, nil, false, e
		}
		return []Request{r}, []*Error{e}, false, nil
	}
	var items []json.RawMessage
	if json.Unmarshal(body, &items) != nil {
		if !json.Valid(body) {
			return nil, nil, false, parseError()
		}
		return nil, nil, true, NewError(CodeParseError, "parse error")
	}
	if len(items) == 0 {
		return nil, nil, false, NewError(CodeInvalidRequest, "invalid request: an empty batch")
	}
	if len(items) > maxItems {
		e := NewError(CodeInvalidRequest, "invalid request: a batch of more than the limit")
		e.Data = map[string]any{"limit": maxItems}
		return nil, nil, false, e
	}
	reqs = make([]Request, len(items))
	errs = make([]*Error, len(items))
	for i, it := range items {
		reqs[i], errs[i] = parseOne(it)
	}
	return reqs, errs, true, nil
}

func parseError() *Error { return NewError(CodeParseError, "parse error: the body is not JSON") }

// parseOne reads one request in one pass that decodes only the method (jsonobject.Read);
// on error the returned request holds the id when it could be read. A text that is not JSON
// is CodeParseError.
func parseOne(b []byte) (Request, *Error) {
	var buf [8]jsonobject.Member
	m, ok := jsonobject.ReadMembers(b, buf[:0])
	if !ok {
		if !json.Valid(b) {
			return Request{}, parseError()
		}
		return Request{ID: null}, NewError(CodeInvalidRequest, "invalid request: not a JSON object")
	}
	return RequestOf(m.Get("jsonrpc"), m.Get("id"), m.Get("method"), m.Get("params"))
}

// RequestOf returns the request whose members jsonrpc, id, method and params are these, as
// read from a JSON object (nil when absent), or why it is not a valid one, with its id when
// that could be read: for a caller that read the object itself (MCP reads params in the same
// pass).
func RequestOf(version, id, method, params json.RawMessage) (Request, *Error) {
	r := Request{ID: id, Params: params}
	invalid := func(msg string) (Request, *Error) {
		if r.ID == nil {
			r.ID = null
		}
		return r, NewError(CodeInvalidRequest, "invalid request: "+msg)
	}
	if r.ID != nil && !validID(r.ID) {
		r.ID = null
		return invalid("id must be a string, a number or null")
	}
	if string(version) != `"2.0"` {
		return invalid(`"jsonrpc" must be "2.0"`)
	}
	name, ok := String(method)
	if !ok || name == "" {
		return invalid("method must be a non-empty string")
	}
	if p := r.Params; len(p) > 0 && p[0] != '{' && p[0] != '[' {
		return invalid("params must be an object or an array")
	}
	r.Method = name
	r.JSONRPC = Version
	return r, nil
}

// String returns the string a JSON value holds, and false when it holds no string.
func String(v json.RawMessage) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return jsonobject.String(v[1 : len(v)-1]), true
	}
	var s string
	return s, json.Unmarshal(v, &s) == nil
}

func validID(id json.RawMessage) bool {
	switch id[0] {
	case '"', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

// FromAPI maps a function's error to a JSON-RPC error: the code by its kind (see the package
// documentation), the message its code, the data the error message itself.
func FromAPI(err error) *Error {
	var je *Error
	if errors.As(err, &je) {
		return je
	}
	e := apierr.From(err)
	code := CodeServerError
	switch e.Code() {
	case apierr.UnknownFunction.Code():
		code = CodeMethodNotFound
	case apierr.TooFewArguments.Code(), apierr.UnknownArguments.Code(), apierr.InvalidArgument.Code(), apierr.InvalidJSON.Code():
		code = CodeInvalidParams
	case apierr.Internal.Code():
		code = CodeInternalError
	}
	data, mErr := json.Marshal(e)
	if mErr != nil {
		data, _ = json.Marshal(apierr.New(e.Declaration()))
	}
	return &Error{Code: code, Message: string(e.Code()), Data: json.RawMessage(data)}
}
