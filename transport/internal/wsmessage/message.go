package wsmessage

import (
	"bytes"
	"encoding/json"

	"github.com/fnapi/fnapi/apierr"
)

// Call is a call message read from a WebSocket:
//
//	{"id": 1, "call": "echo", "args": {...}}    a call
//	{"id": "a", "stream": "count", "args": {...}} a streaming call
//	{"id": 2, "call": "echo", "args": {}, "meta": {"traceparent": "00-..."}} with call metadata
type Call struct {
	ID     string // the id as sent, a number's text or a string's content
	Name   string // the function
	Stream bool
	Args   map[string]json.RawMessage
	Meta   map[string]string // the optional meta attribute, for interceptors (registry.Call.Meta)
}

// callJSON is the message as JSON sees it; the fields stay raw so that each one's type can be
// checked and named in the error.
type callJSON struct {
	ID     json.RawMessage `json:"id"`
	Call   json.RawMessage `json:"call"`
	Stream json.RawMessage `json:"stream"`
	Args   json.RawMessage `json:"args"`
	Meta   json.RawMessage `json:"meta"`
}

// Parse reads a call message. A message that is not a valid call answers INVALID-MESSAGE
// with the reason; the id is returned whenever it could be read, so that the error carries it.
// The optional meta attribute is an object of strings; other attributes are ignored.
func Parse(data []byte) (Call, error) {
	if c, ok := parseFast(data); ok {
		return c, nil
	}
	return parseJSON(data)
}

// parseJSON reads any message with encoding/json.
func parseJSON(data []byte) (Call, error) {
	var c Call
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		if json.Valid(data) {
			return c, invalidMessage("the message must be a JSON object")
		}
		return c, invalidMessage("the message is not JSON")
	}
	var m callJSON
	if err := json.Unmarshal(data, &m); err != nil {
		return c, invalidMessage("the message is not JSON")
	}
	id, err := parseID(m.ID)
	if err != nil {
		return c, err
	}
	c.ID = id
	hasCall, hasStream := present(m.Call), present(m.Stream)
	if hasCall == hasStream {
		return c, invalidMessage("the message must have exactly one of call and stream")
	}
	name := m.Call
	if hasStream {
		name, c.Stream = m.Stream, true
	}
	if err := json.Unmarshal(name, &c.Name); err != nil || name[0] != '"' {
		return c, invalidMessage("call and stream name the function as a string")
	}
	if !present(m.Args) {
		return c, invalidMessage("args is required: an object of arguments, {} for none")
	}
	if m.Args[0] != '{' {
		return c, invalidMessage("args must be an object")
	}
	if err := json.Unmarshal(m.Args, &c.Args); err != nil {
		return c, invalidMessage("args must be an object")
	}
	if present(m.Meta) {
		var meta map[string]string
		if m.Meta[0] != '{' || json.Unmarshal(m.Meta, &meta) != nil {
			return c, invalidMessage("meta must be an object of strings")
		}
		c.Meta = meta
	}
	return c, nil
}

// parseID reads a call id: a non-empty string, or a number kept as its text (1 becomes "1").
func parseID(raw json.RawMessage) (string, error) {
	if !present(raw) {
		return "", invalidMessage("id is required: a string or a number")
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil || s == "" {
			return "", invalidMessage("id must be a non-empty string or a number")
		}
		return s, nil
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return string(raw), nil // json.Unmarshal has checked it is a valid number
	}
	return "", invalidMessage("id must be a non-empty string or a number")
}

// present reports whether a field was given, and not as null.
func present(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

func invalidMessage(reason string) error {
	return apierr.New(apierr.InvalidMessage, "reason", reason)
}
