package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/fnapi/fnapi/apierr"
)

// message is one message from the server.
type message struct {
	ID     string          `json:"id"`
	Type   string          `json:"type"`
	Result json.RawMessage `json:"result"`
	Chunk  json.RawMessage `json:"chunk"`
	raw    []byte
}

// errNotJSON is the error of a message that is not JSON.
var errNotJSON = errors.New("client: the server sent a message that is not JSON")

func decodeMessage(b []byte) (message, error) {
	var m message
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%w: %w", errNotJSON, err)
	}
	m.raw = b
	return m, nil
}

// err returns the *apierr.Error of an error message.
func (m message) err() error {
	e := new(apierr.Error)
	if err := json.Unmarshal(m.raw, e); err != nil {
		return fmt.Errorf("client: malformed error message: %w", err)
	}
	return e
}

// result stores the result of a result message in out, or returns the error of an error
// message.
func (m message) result(out any) error {
	switch m.Type {
	case "result":
		if out == nil {
			return nil
		}
		if err := json.Unmarshal(m.Result, out); err != nil {
			return fmt.Errorf("client: decoding the result: %w", err)
		}
		return nil
	case "error":
		return m.err()
	}
	return fmt.Errorf("client: unexpected %q message", m.Type)
}

// decodeAnswer stores in out the result of b, the message answering a call, or returns the
// error it holds, as decodeMessage and result do. When out is a pointer it decodes the message
// and its result in one pass: encoding/json reads its input twice for each Unmarshal (to check
// it, then to decode), and decoding the message first, then its result, made four passes over
// a large result. Should the one pass fail on anything but bad JSON, the two-step decoding
// gives the error.
func decodeAnswer(b []byte, out any) error {
	if v := reflect.ValueOf(out); v.Kind() != reflect.Pointer || v.IsNil() {
		return decodeInSteps(b, out)
	}
	m := struct {
		Type   string `json:"type"`
		Result any    `json:"result"`
	}{Result: out}
	err := json.Unmarshal(b, &m)
	if _, syntax := errors.AsType[*json.SyntaxError](err); syntax {
		return fmt.Errorf("%w: %w", errNotJSON, err)
	}
	if err != nil {
		return decodeInSteps(b, out)
	}
	switch m.Type {
	case "result":
		if m.Result == nil { // "result": null, which encoding/json stored in m.Result, not in out
			return json.Unmarshal([]byte("null"), out)
		}
		return nil
	case "error":
		return message{raw: b}.err()
	}
	return fmt.Errorf("client: unexpected %q message", m.Type)
}

func decodeInSteps(b []byte, out any) error {
	m, err := decodeMessage(b)
	if err != nil {
		return err
	}
	return m.result(out)
}

// encodeArgs encodes args as a JSON object.
func encodeArgs(args any) (json.RawMessage, error) {
	if args == nil {
		return json.RawMessage("{}"), nil
	}
	b, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("client: encoding the arguments: %w", err)
	}
	if len(b) == 0 || b[0] != '{' {
		return nil, fmt.Errorf("client: the arguments must encode as a JSON object, not %.20s", b)
	}
	return b, nil
}
