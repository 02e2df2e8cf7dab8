package client

import (
	"encoding/json"
	"fmt"

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

func decodeMessage(b []byte) (message, error) {
	var m message
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("client: the server sent a message that is not JSON: %w", err)
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
