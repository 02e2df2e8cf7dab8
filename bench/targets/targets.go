package targets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// Server names one server process's worth of handlers.
type Server string

// The servers compared.
const (
	FnAPI   Server = "fnapi"
	NetHTTP Server = "net-http"
	Geth    Server = "geth"
	Connect Server = "connect"
)

// Servers lists every server, fnapi first.
func Servers() []Server { return []Server{FnAPI, NetHTTP, Geth, Connect} }

// Handler returns the handler serving all the targets of s.
func Handler(s Server) (http.Handler, error) {
	switch s {
	case FnAPI:
		return fnapiHandler()
	case NetHTTP:
		return floorHandler(), nil
	case Geth:
		return gethHandler()
	case Connect:
		return connectHandler(), nil
	}
	return nil, fmt.Errorf("targets: unknown server %q", s)
}

// Kind is how a target is called.
type Kind string

// The kinds of call.
const (
	GET  Kind = "GET"  // HTTP GET, arguments in the query string
	POST Kind = "POST" // HTTP POST, arguments in a JSON body
	WS   Kind = "WS"   // a message on a WebSocket, many calls in flight on one connection
)

// Target is one way of calling echo {a: 1, b: "x"} on a server.
type Target struct {
	// Name identifies the target in reports, e.g. "fnapi GET".
	Name   string
	Server Server
	Kind   Kind
	// Path is the request path, with its query string for GET.
	Path string
	// ContentType and Body are the POST request's.
	ContentType string
	Body        string
	// AppendMessage appends the WebSocket call message with the given id (WS targets only).
	AppendMessage func(dst []byte, id uint64) []byte
	// resultKey names the member of the answer that holds the echoed object; "" means the
	// answer itself.
	resultKey string
}

// All returns every target, in the order rounds run them.
func All() []Target {
	return []Target{
		{Name: "fnapi GET", Server: FnAPI, Kind: GET, Path: "/api/echo?a=1&b=%22x%22", resultKey: "result"},
		{Name: "fnapi POST", Server: FnAPI, Kind: POST, Path: "/api/echo",
			ContentType: "application/json", Body: `{"a":1,"b":"x"}`, resultKey: "result"},
		{Name: "fnapi GET +log+metrics", Server: FnAPI, Kind: GET, Path: "/observed/api/echo?a=1&b=%22x%22", resultKey: "result"},
		{Name: "fnapi WS", Server: FnAPI, Kind: WS, Path: "/api/ws", AppendMessage: appendFnAPICall, resultKey: "result"},
		{Name: "net/http GET", Server: NetHTTP, Kind: GET, Path: "/echo?a=1&b=%22x%22", resultKey: "result"},
		{Name: "net/http POST", Server: NetHTTP, Kind: POST, Path: "/echo",
			ContentType: "application/json", Body: `{"a":1,"b":"x"}`, resultKey: "result"},
		{Name: "geth HTTP", Server: Geth, Kind: POST, Path: "/",
			ContentType: "application/json", Body: `{"jsonrpc":"2.0","id":1,"method":"echo_echo","params":[1,"x"]}`,
			resultKey: "result"},
		{Name: "geth WS", Server: Geth, Kind: WS, Path: "/ws", AppendMessage: appendGethCall, resultKey: "result"},
		{Name: "connect HTTP", Server: Connect, Kind: POST, Path: connectProcedure,
			ContentType: "application/json", Body: `{"a":1,"b":"x"}`},
	}
}

func appendFnAPICall(dst []byte, id uint64) []byte {
	dst = append(dst, `{"id":"`...)
	dst = strconv.AppendUint(dst, id, 10)
	return append(dst, `","call":"echo","args":{"a":1,"b":"x"}}`...)
}

func appendGethCall(dst []byte, id uint64) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = strconv.AppendUint(dst, id, 10)
	return append(dst, `,"method":"echo_echo","params":[1,"x"]}`...)
}

// Check reports whether answer is a correct answer to the echo call: one JSON value whose
// result is exactly {"a":1,"b":"x"}.
func (t Target) Check(answer []byte) error {
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(answer, &msg); err != nil {
		return fmt.Errorf("targets: %s: answer is not a JSON object: %w: %q", t.Name, err, answer)
	}
	res := bytes.TrimSpace(answer)
	if t.resultKey != "" {
		res = msg[t.resultKey]
	}
	var got struct {
		A *json.Number `json:"a"`
		B *string      `json:"b"`
	}
	d := json.NewDecoder(bytes.NewReader(res))
	d.UseNumber()
	d.DisallowUnknownFields()
	if err := d.Decode(&got); err != nil || got.A == nil || got.B == nil ||
		got.A.String() != "1" || *got.B != "x" {
		return fmt.Errorf("targets: %s: answer %q does not echo {a: 1, b: \"x\"}", t.Name, answer)
	}
	return nil
}
