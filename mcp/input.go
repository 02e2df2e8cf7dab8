package mcp

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fnapi/fnapi/internal/jsonobject"
	"github.com/fnapi/fnapi/jsonrpc"
)

// Input is one question of a function to its client: Method is "sampling/createMessage" (its
// model), "elicitation/create" (its user) or "roots/list" (its roots), Params the request's
// params (see the specification).
type Input struct {
	Method string
	Params any
}

// ErrInputRequired ends a stateless call that asked its client (see Ask): the function
// returns it (or an error wrapping it), and the client calls again with the answers. It is a
// cancellation, as the call's log line and metrics say.
var ErrInputRequired = fmt.Errorf("mcp: the call needs its client's answers and runs again with them: %w", context.Canceled)

// maxInputs bounds the questions one call asks in one round.
const maxInputs = 16

// capabilityOf is the client capability each question needs.
var capabilityOf = map[string]string{"sampling/createMessage": "sampling", "elicitation/create": "elicitation", "roots/list": "roots"}

// Ask asks the client of the call ctx belongs to the questions, by key, and returns its
// answers by key (each the client's result, as JSON). In a session (2025-11-25) each goes to
// the client as a request of the server on the call's stream, in the order of their keys (see
// Request). In a stateless request (2026-07-28) the server holds nothing: the first time, Ask
// returns ErrInputRequired and the client receives an input_required result with the
// questions; it calls again with the answers, the function runs again from its start and Ask
// returns them. So a function asks before it changes anything. A question needing a
// capability the client did not declare fails with an error that is ErrNoClient (errors.Is):
// a function may do without, or return it, and the client gets CodeMissingCapability (HTTP
// 400, data.requiredCapabilities).
func Ask(ctx context.Context, questions map[string]Input) (map[string]json.RawMessage, error) {
	st := stateOf(ctx)
	if st == nil || st.a == nil {
		return nil, ErrNoClient
	}
	if in := st.a.input; in != nil {
		return in.ask(questions)
	}
	answers := make(map[string]json.RawMessage, len(questions))
	for _, k := range slices.Sorted(maps.Keys(questions)) {
		res, err := Request(ctx, questions[k].Method, questions[k].Params)
		if err != nil {
			return nil, err
		}
		answers[k] = res
	}
	return answers, nil
}

// CodeMissingCapability is the error of a stateless call whose function needs a capability
// its client did not declare: the function returned the error of Ask (HTTP 400).
const CodeMissingCapability = -32021

// missingCapability is Ask's error for a question the client did not declare it can answer:
// it is ErrNoClient; a function that returns it answers CodeMissingCapability.
type missingCapability struct{ capability string }

func (e *missingCapability) Error() string {
	return "mcp: the client did not declare the capability " + e.capability
}

func (e *missingCapability) Is(target error) bool { return target == ErrNoClient }

// missingError is the JSON-RPC error of a call that failed with missingCapability, or nil.
func missingError(err error) *jsonrpc.Error {
	if err == nil {
		return nil
	}
	var mc *missingCapability
	if !errors.As(err, &mc) {
		return nil
	}
	e := jsonrpc.NewError(CodeMissingCapability, "missing required client capability: "+mc.capability)
	e.Data = map[string]any{"requiredCapabilities": map[string]any{mc.capability: map[string]any{}}}
	return e
}

// inputs are the questions and answers of one stateless request.
type inputs struct {
	caps    json.RawMessage            // the client's capabilities
	answers map[string]json.RawMessage // of the requestState and the inputResponses

	mu    sync.Mutex
	asked map[string]Input // the questions without an answer
	over  bool             // more than maxInputs asked: the call fails
	n     int              // Requests made, naming their keys
	// answered, when set, is called once, at the first question answered (a call of
	// Options.AskBeforeTask becoming a task)
	answered func()
}

// ask answers the questions from the answers, or records those without one and returns
// ErrInputRequired.
func (in *inputs) ask(questions map[string]Input) (map[string]json.RawMessage, error) {
	caps := map[string]json.RawMessage{}
	in.mu.Lock()
	jsonobject.Read(in.caps, caps, false) // checked by inputsOf; none once the request is answered (end)
	in.mu.Unlock()
	for _, q := range questions {
		c, ok := capabilityOf[q.Method]
		if !ok {
			return nil, fmt.Errorf("mcp: a client cannot be asked %q", q.Method)
		}
		if caps[c] == nil {
			return nil, &missingCapability{c}
		}
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	answers := make(map[string]json.RawMessage, len(questions))
	for k := range questions {
		if a, ok := in.answers[k]; ok {
			answers[k] = a
		}
	}
	if len(answers) == len(questions) {
		if f := in.answered; f != nil {
			in.answered = nil
			f()
		}
		return answers, nil
	}
	if in.over || len(in.asked)+len(questions)-len(answers) > maxInputs {
		in.over, in.asked = true, nil // the call fails: no input_required result
		return nil, fmt.Errorf("mcp: more than %d questions to the client at once", maxInputs)
	}
	if in.asked == nil {
		in.asked = make(map[string]Input)
	}
	for k, q := range questions {
		if _, ok := answers[k]; !ok {
			in.asked[k] = q
		}
	}
	return nil, ErrInputRequired
}

// end ends the request the inputs are of: their capabilities point into its body, which is
// lent (see post), and a function that asks after it answers no client.
func (in *inputs) end() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.caps = nil
}

// next names the key of a Request: request-1, request-2... in the order of the call.
func (in *inputs) next() string {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.n++
	return "request-" + strconv.Itoa(in.n)
}

// answer records the client's answer to the question k.
func (in *inputs) answer(k string, v json.RawMessage) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.answers[k] = v
}

// takeAsked returns the questions asked without an answer, and forgets them: a task asks
// them, then runs again.
func (in *inputs) takeAsked() map[string]Input {
	in.mu.Lock()
	defer in.mu.Unlock()
	asked := in.asked
	in.asked, in.n = nil, 0
	return asked
}

// required returns the questions asked without an answer; none when the call completes.
func (in *inputs) required() map[string]Input {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.asked
}

// asking reports the requests whose answer may be input_required.
func asking(method string) bool {
	switch method {
	case "tools/call", "prompts/get", "resources/read":
		return true
	}
	return false
}

// inputsOf reads the inputResponses and requestState of a stateless request: the answers of
// the earlier rounds, signed for its caller (owner returns its token digest, computed only
// for a requestState) and target (method and name), and of this one.
func (s *Server) inputsOf(sess *session, owner func() [32]byte) (*inputs, *jsonrpc.Error) {
	in := &sess.own.inputs // a stateless request's session is its own
	in.caps = sess.caps
	invalid := func(msg string) (*inputs, *jsonrpc.Error) {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: "+msg)
	}
	// caps is a member of the _meta statelessSession read: valid JSON, without space around.
	if len(sess.caps) == 0 || sess.caps[0] != '{' {
		return invalid("_meta's clientCapabilities must be an object")
	}
	if sess.requestState != nil || sess.inputResponses != nil {
		in.answers = map[string]json.RawMessage{}
	}
	if raw := sess.requestState; raw != nil {
		state, ok := jsonrpc.String(raw)
		if !ok || !s.verify(state, owner(), sess.target(), in.answers) {
			return invalid("requestState is not one this server gave, or has expired")
		}
	}
	if raw := sess.inputResponses; raw != nil {
		responses := map[string]json.RawMessage{}
		if !jsonobject.Read(raw, responses, true) { // the answers outlive the body (a task's)
			return invalid("inputResponses must be an object")
		}
		for k, v := range responses {
			if len(v) == 0 || v[0] != '{' {
				return invalid("inputResponses." + k + " must be an object, the client's result")
			}
			in.answers[k] = v
		}
	}
	return in, nil
}

// inputRequired is the result of a stateless call that asked its client: the questions, and
// the answers so far as requestState.
func (s *Server) inputRequired(in *inputs, owner [32]byte, target string) any {
	asked := in.required()
	requests := make(map[string]any, len(asked))
	for k, q := range asked {
		requests[k] = map[string]any{"method": q.Method, "params": q.Params}
	}
	return struct {
		ResultType    string         `json:"resultType"`
		InputRequests map[string]any `json:"inputRequests"`
		RequestState  string         `json:"requestState"`
	}{"input_required", requests, s.sign(in.answers, owner, target)}
}

// A requestState is base64url(JSON {t: unix seconds, a: answers}) "." base64url(HMAC-SHA256
// of the caller's token digest, the target and the JSON, with Options.StateKey).
type requestState struct {
	T int64                      `json:"t"`
	A map[string]json.RawMessage `json:"a"`
}

func (s *Server) sign(answers map[string]json.RawMessage, owner [32]byte, target string) string {
	b, _ := json.Marshal(requestState{T: time.Now().Unix(), A: answers})
	p := base64.RawURLEncoding.EncodeToString(b)
	return p + "." + base64.RawURLEncoding.EncodeToString(s.mac(owner, target, p))
}

func (s *Server) mac(owner [32]byte, target, payload string) []byte {
	m := hmac.New(sha256.New, s.opts.StateKey)
	m.Write(owner[:])
	m.Write([]byte(target))
	m.Write([]byte{0})
	m.Write([]byte(payload))
	return m.Sum(nil)
}

// verify checks a requestState and adds its answers to answers.
func (s *Server) verify(state string, owner [32]byte, target string, answers map[string]json.RawMessage) bool {
	p, sig, ok := strings.Cut(state, ".")
	if !ok {
		return false
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, s.mac(owner, target, p)) {
		return false
	}
	b, err := base64.RawURLEncoding.DecodeString(p)
	var rs requestState
	if err != nil || json.Unmarshal(b, &rs) != nil {
		return false
	}
	if age := time.Since(time.Unix(rs.T, 0)); age > s.opts.StateTTL || age < -time.Minute {
		return false
	}
	maps.Copy(answers, rs.A)
	return true
}
