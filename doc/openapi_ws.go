package doc

import "github.com/invopop/jsonschema"

// OpenAPI 3.1 has no way to describe a WebSocket's messages. The document gives the endpoint as
// the path /ws, whose GET answers 101 Switching Protocols, with the protocol in its description,
// and the call message and its answers as the component schemas WSCall and WSAnswer, so that
// Swagger UI shows them and generators emit their types; the functions' argument, result and
// chunk schemas are those of their HTTP operations.

// wsPathItem describes the WebSocket endpoint.
func wsPathItem() *oaPathItem {
	return &oaPathItem{Get: &oaOperation{
		OperationID: "ws",
		Summary:     "Opens a WebSocket that carries calls of every function.",
		Description: "Upgrade this GET to a WebSocket (wss://). Each text message the client sends is a call " +
			"(schema WSCall): {\"id\": 1, \"call\": \"fn\", \"args\": {...}}, or \"stream\" instead of \"call\" for a streaming " +
			"call. Calls run concurrently; every answer (schema WSAnswer) carries its call's id as a string: one result or " +
			"error message, or for a stream chunk messages then end (or one error). The arguments, results and chunks are " +
			"those of the function's HTTP operation. A token given at the handshake (session cookie, API key header, " +
			"_session or _key in the URL) applies to every call; _session or _key in a call's args applies to that call. " +
			"The built-in function cancel(id) cancels a running call of the same connection. The optional meta object of a " +
			"call carries a trace context for that call (traceparent, tracestate).",
		Responses: map[string]oaResponse{
			"101": {Description: "Switching Protocols: the connection is a WebSocket carrying WSCall messages and WSAnswer answers."},
			"4XX": {Ref: "#/components/responses/Error"},
		},
	}}
}

// wsSchemas returns the schemas of the WebSocket's call message and answers.
func wsSchemas() map[string]*jsonschema.Schema {
	id := &jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Type: "string", MinLength: ptrUint(1)}, {Type: "number"}},
		Description: "Unique among the connection's running calls; labels the answers, and names the call to cancel."}
	name := func(d string) *jsonschema.Schema { return &jsonschema.Schema{Type: "string", Description: d} }
	call := &jsonschema.Schema{
		Type:        "object",
		Description: "A call message: exactly one of call and stream.",
		Properties:  jsonschema.NewProperties(),
		Required:    []string{"id", "args"},
	}
	call.Properties.Set("id", id)
	call.Properties.Set("call", name("The function, called for one result."))
	call.Properties.Set("stream", name("The function, called in streaming mode."))
	call.Properties.Set("args", &jsonschema.Schema{Type: "object", AdditionalProperties: jsonschema.TrueSchema,
		Description: "The arguments by name ({} for none), and optionally the call's token in _session or _key."})
	call.Properties.Set("meta", &jsonschema.Schema{Type: "object", AdditionalProperties: &jsonschema.Schema{Type: "string"},
		Description: "Optional values for the server's interceptors, such as a W3C trace context (traceparent, tracestate). Servers that do not use them ignore them."})

	answer := &jsonschema.Schema{
		Type:        "object",
		Description: "An answer: a result, chunk, end or error message with the id of its call.",
		Properties:  jsonschema.NewProperties(),
		Required:    []string{"id", "type"},
	}
	answer.Properties.Set("id", &jsonschema.Schema{Type: "string", Description: "The id of the call answered, as a string (1 becomes \"1\")."})
	answer.Properties.Set("type", &jsonschema.Schema{Type: "string", Enum: []any{"result", "chunk", "end", "error"}})
	answer.Properties.Set("result", &jsonschema.Schema{Description: "With type result: the function's result."})
	answer.Properties.Set("chunk", &jsonschema.Schema{Description: "With type chunk: one chunk of a stream."})
	answer.Properties.Set("error", &jsonschema.Schema{Type: "string", Description: "With type error: the code; other attributes detail it."})
	return map[string]*jsonschema.Schema{"WSCall": call, "WSAnswer": answer}
}

func ptrUint(n uint64) *uint64 { return &n }
