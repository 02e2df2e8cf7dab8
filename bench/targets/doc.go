// Package targets holds the servers compared by the fnapi benchmark harness: the same echo call
// with the named arguments {a: 1, b: "x"} served by fnapi, by a hand-written net/http handler
// (the floor any framework pays), by go-ethereum's rpc package and by connect-go with its JSON
// codec.
//
// A Server is one process's worth of handlers (fnapi's HTTP and WebSocket endpoints share one);
// a Target is one way of calling echo on a server: its path, method, body or WebSocket message,
// and how to check the answer. The harness (cmd/compare) serves each Server in its own child
// process over TLS and drives each Target with the same load generators (package load).
//
// What each peer does for the call:
//
//   - fnapi: the built-in echo (fnapi.RegisterBuiltins), public, with fnapi.New's defaults (no
//     logging, no metrics); GET /api/echo?a=1&b=%22x%22, POST /api/echo with a JSON body, and
//     {"id":"N","call":"echo","args":{"a":1,"b":"x"}} over /api/ws; and GET again with a
//     per-call zap log line (JSON, to io.Discard) and Prometheus metrics enabled, under
//     /observed/api, to show what observability costs.
//   - net/http: GET /echo reads the query string as JSON values, POST /echo decodes the body
//     into a map of raw JSON values; both answer {"type":"result","result":{...}} with
//     encoding/json, as fnapi does.
//   - go-ethereum: a service "echo" whose method Echo(a int, b string) answers a struct {a, b};
//     called as echo_echo with positional params [1, "x"] (JSON-RPC has no named arguments),
//     over HTTP POST and over /ws.
//   - connect-go: a unary procedure /echo.v1.EchoService/Echo with structpb.Struct as request
//     and response message, so no generated code is needed; called with the Connect protocol's
//     JSON encoding (POST, Content-Type application/json, the body {"a":1,"b":"x"}).
package targets
