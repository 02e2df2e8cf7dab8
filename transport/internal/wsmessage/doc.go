// Package wsmessage reads the call messages of fnapi's WebSocket (package transport, ws.go):
//
//	{"id": 1, "call": "echo", "args": {...}}
//	{"id": "a", "stream": "count", "args": {...}, "meta": {"traceparent": "00-..."}}
//
// Parse reads one into a Call, or answers INVALID-MESSAGE (apierr) with the reason and, when it
// could be read, the id. Messages of the usual shape are read in one pass without reflection
// (fast.go); any other by encoding/json, and the two agree on what both accept
// (FuzzParseCallFast). A new member of the message is a field of Call, read in both.
package wsmessage
