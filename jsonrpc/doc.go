// Package jsonrpc serves a registry's functions as JSON-RPC 2.0 methods, and holds the message
// types that package mcp shares.
//
// Turned on with fnapi.WithJSONRPC, it answers POST {mount}/jsonrpc and {mount}/<M.m>/jsonrpc:
// each function is a method named as the function, its named parameters (params, a JSON
// object) are the function's arguments, and its result is the function's result.
//
//	--> {"jsonrpc": "2.0", "id": 1, "method": "echo", "params": {"text": "hi"}}
//	<-- {"jsonrpc": "2.0", "id": 1, "result": {"text": "hi"}}
//
// Tokens come as on every other path (an API key as Authorization: Bearer or the key header,
// the session cookie, _key and _session in params), and every call goes through the same
// interceptors, rate limits, log line and metrics, with Call.Transport() "jsonrpc".
//
// A batch (a JSON array of requests) holds at most Options.MaxBatch requests (default 100),
// and the body at most Options.MaxBytes bytes (default 1 MiB); its requests run one after the
// other, in order, within one deadline for the whole batch, Options.BatchTimeout (default
// 60 s): the call running at that deadline ends with TIMEOUT, and the requests after it are
// answered TIMEOUT without running. When the client goes away, the batch stops: the requests
// not yet run are not run (answered CANCELLED, for whatever can still read the answer). A
// notification (a request without id) runs and is not answered; a body of notifications only
// answers 202 Accepted with no body.
//
// Errors: a body that is not JSON is -32700; a request that is not a valid JSON-RPC 2.0
// request (a wrong "jsonrpc", a method that is not a string, a batch over the limit) is
// -32600; an unknown function is -32601; argument errors (TOO-FEW-ARGUMENTS,
// UNKNOWN-ARGUMENTS, INVALID-ARGUMENT, INVALID-JSON, positional params) are -32602;
// INTERNAL-ERROR is -32603; every other error of a function is -32000. In each case but
// -32700 and -32600, error.data is the function's error message as the HTTP binding answers
// it: {"type": "error", "error": CODE, ...attributes}; error.message is its code.
package jsonrpc
