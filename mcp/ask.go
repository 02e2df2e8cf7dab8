package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/fnapi/fnapi/jsonrpc"
)

// ErrNoClient is the error of Request outside an MCP tool call, or for a client that does not
// accept streams.
var ErrNoClient = errors.New("mcp: no MCP client to ask")

// Request sends a request to the MCP client whose tool call ctx belongs to, and waits for its
// answer: "sampling/createMessage" asks the client's model, "elicitation/create" its user,
// "roots/list" its roots. In a stateless request it is Ask of one question, keyed
// request-N for the call's N-th Request. params is the request's params (see the specification); the result
// is the client's result, as JSON. A client's error answer is a *jsonrpc.Error. It returns
// when the client answers, or with ctx's error when the call ends first.
func Request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	st := stateOf(ctx)
	if st != nil && st.a != nil && st.a.input != nil { // stateless: a question of Ask
		key := st.a.input.next()
		answers, err := st.a.input.ask(map[string]Input{key: {Method: method, Params: params}})
		return answers[key], err
	}
	if st == nil || st.s == nil || st.s.stateless {
		return nil, ErrNoClient
	}
	id, ch := st.s.expect()
	defer st.s.forget(id)
	if !st.a.request(json.RawMessage(id), method, params) {
		return nil, ErrNoClient
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case resp := <-ch:
		if resp.Error != nil {
			return nil, resp.Error
		}
		return resp.Result, nil
	}
}

// expect makes the id of a request of the server and the channel its answer comes on.
func (s *session) expect() (string, chan jsonrpc.Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked++
	id := strconv.Quote("fnapi-" + strconv.Itoa(s.asked))
	ch := make(chan jsonrpc.Response, 1)
	if s.pending == nil {
		s.pending = make(map[string]chan jsonrpc.Response)
	}
	s.pending[id] = ch
	return id, ch
}

func (s *session) forget(id string) {
	s.mu.Lock()
	delete(s.pending, id)
	s.mu.Unlock()
}

// answered delivers the client's answer to a request of the server; an answer nobody waits
// for is dropped.
func (s *session) answered(body []byte) {
	var resp jsonrpc.Response
	if json.Unmarshal(body, &resp) != nil {
		return
	}
	s.mu.Lock()
	ch := s.pending[string(resp.ID)]
	delete(s.pending, string(resp.ID))
	s.mu.Unlock()
	if ch != nil {
		ch <- resp
	}
}
