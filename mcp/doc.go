// Package mcp serves a registry's functions as the tools of a Model Context Protocol server
// (specifications 2025-11-25 and 2026-07-28, Streamable HTTP transport), so that AI agents (Claude, ChatGPT,
// IDE assistants) call the same functions as every other client.
//
// Turned on with fnapi.WithMCP, it answers {mount}/mcp and {mount}/<M.m>/mcp:
//
//	h, err := fnapi.New(reg, fnapi.WithInterceptors(a.Interceptor()), fnapi.WithMCP(mcp.Options{
//		Resources: []mcp.Resource{{URI: "doc://api", Name: "api", Function: "doc"}},
//	}))
//
// Every function the caller may call at that version is a tool named as the function:
// inputSchema is its argument schema, outputSchema its result schema (a result that is not an
// object is wrapped: {"result": value}, as MCP wants an object), annotations.readOnlyHint
// says it is registry.ReadOnly. tools/list asks the interceptors whether the caller may call
// each function (registry.Call.Probe), so that a read-only user sees only what it may call,
// a page of Options.PageSize tools at a time. tools/call answers the result as
// structuredContent and as JSON text; a function's error is a result with isError: true whose
// text is the error message, {"type": "error", "error": CODE, ...attributes}; a malformed
// request (no tool of that name, arguments that are not an object) is a JSON-RPC error. A
// function whose result is []Content answers those blocks (images, audio, embedded resources).
//
// A call goes through the same interceptors (authentication, roles, rate limits), log line and
// metrics as every other, with Call.Transport() "mcp". Every other request (initialize, ping,
// tools/list, notifications, static resources and prompts, an unknown tool...) counts once
// against the caller's rate limits too, before any work: the interceptors see a metered probe
// (registry.Call.Metered); past the limit it answers HTTP 429 with Retry-After and the
// JSON-RPC error RATE-LIMITED (code -32000, data {"error": "RATE-LIMITED", "retry_after": s}).
// A DELETE, which frees a session, is not counted. Tokens are those of the HTTP binding, an
// API key also as Authorization: Bearer. A request whose token does not authenticate, or that
// has none while the version serves functions that need one, answers HTTP 401 with
// WWW-Authenticate: Bearer. OAuth authorization servers are not supported: a client is given
// an API key.
//
// Sessions: initialize answers an Mcp-Session-Id; every later request carries it (400
// without, 404 for one that ended, expired after Options.SessionIdle, or was started with
// other tokens), and DELETE ends it. A session ends with its token too: every request checks
// the token, and one that no longer authenticates (a key revoked, a login session ended, its
// user deleted) answers 401 and ends the session. A caller (a user, whichever of its tokens; an
// anonymous client by its address) holds at most Options.SessionsPerCaller sessions (16):
// past it, its least recently used session that runs no call ends, so that an agent that never
// says DELETE keeps working and no caller takes the room of others. At most
// Options.MaxSessions live at once, the last resort (HTTP 503). A request with
// an MCP-Protocol-Version the package does not speak answers 400; one with an Origin that is
// neither the server's nor allowed (fnapi.WithAllowedOrigins) answers 403, against DNS
// rebinding. There are no batches (the specification removed them) and no stream of the
// server's own (GET answers 405): a call's notifications go on its POST's answer.
//
// During a call, the answer turns into Server-Sent Events at the first notification: progress
// (a streaming function's chunks, when the request has a progressToken; or Progress), and log
// messages (Log), filtered by logging/setLevel. notifications/cancelled cancels the call's
// context. resources/list, resources/templates/list, resources/read, prompts/list and
// prompts/get serve Options.Resources and Options.Prompts, each backed by a function of the
// registry.
//
// Revision 2026-07-28 is served on the same endpoint, chosen by what the client sends: a
// request without Mcp-Session-Id whose MCP-Protocol-Version is no revision of sessions (or,
// without that header, whose params._meta names its version) is stateless. It carries its
// version and client capabilities in params._meta (missing: 400, -32602), the same version
// in MCP-Protocol-Version (else 400, CodeHeaderMismatch; a version not spoken: 400,
// CodeUnsupportedVersion with data {supported, requested}), its method in Mcp-Method and, for
// tools/call, prompts/get, resources/read and tasks/*, its params.name, uri or taskId in Mcp-Name (compared
// without surrounding whitespace; else 400, CodeHeaderMismatch), and a tool argument whose
// schema says x-mcp-header in its Mcp-Param-<name> header (see paramheaders.go; tag the field
// `jsonschema_extras:"x-mcp-header=Region"`). Options.InputSchemas shows a hand-written JSON
// Schema 2020-12 ($schema, $defs, allOf, if/then/else) for a tool. It holds no session: nothing
// is kept between requests, so several nodes serve it sharing nothing, the bound on sessions
// does not apply, and each request still counts against the rate limit and the body limit.
// server/discover answers the revisions, capabilities and serverInfo (in _meta). Every result
// has resultType "complete"; lists and reads carry ttlMs 0 (what a caller may call, and what
// functions answer, may change at any time) and cacheScope "public" when every function of
// the version is public, else "private". The methods the revision removed (initialize, ping,
// logging/setLevel, resources/subscribe...) and unknown ones answer HTTP 404, -32601; a
// resource not found -32602 with data.uri. Log messages go only to a request whose _meta sets
// io.modelcontextprotocol/logLevel. Schemas are JSON Schema 2020-12, the default dialect of
// both revisions, and carry no $schema.
//
// A tool's function may ask its client during the call with Ask or Request: its model
// (sampling/createMessage), its user (elicitation/create) or its roots (roots/list). In a
// session the question goes as a request of the server on the call's stream and the client's
// answer comes back as a POST in the session. In a stateless request the server keeps
// nothing: Ask returns ErrInputRequired, the call answers {resultType: "input_required",
// inputRequests, requestState} (tools/call, prompts/get and resources/read), and the client
// calls again with inputResponses and the requestState; the function runs again from its
// start, and Ask finds its answers. The requestState carries the answers of the earlier
// rounds, signed (HMAC-SHA256, Options.StateKey) for the caller's tokens and the method and
// name called, valid Options.StateTTL (1 h): altered, another caller's or tool's, expired, it
// answers -32602. At most 16 questions are asked in one round; a question needing a client
// capability the request's _meta does not declare fails with an error that is ErrNoClient,
// which a function returning it turns into CodeMissingCapability (HTTP 400).
//
// Tasks (the extension io.modelcontextprotocol/tasks of 2026-07-28): for a stateless client
// that declares the extension in its capabilities, a tools/call of a streaming function or of
// one named in Options.Tasks answers at once {resultType: "task", taskId, status: "working",
// createdAt, lastUpdatedAt, ttlMs}; the call runs on, through the same interceptors (it counts
// once against the rate limit), with no stream: its progress goes nowhere, and it has the
// deadline of a call (fnapi.WithCallTimeout), a _meta.progressToken notwithstanding.
// tasks/get answers its status (working, completed, failed, cancelled) with the tool's result
// inlined once completed (a function's error too, with isError), or failed with a protocol
// error when the server failed (INTERNAL-ERROR, a panic) or when the result, as JSON, is over
// Options.MaxTaskResultBytes (1 MiB: REQUEST-TOO-LARGE with its limit, the result not kept);
// tasks/cancel cancels it. A task is visible to the tokens that started it only (else -32602,
// as an unknown id), kept Options.TaskTTL (1 h) once ended; a caller holds at most
// Options.TasksPerCaller (16), Options.MaxTasks (10,000) in all, past which the call answers an
// error without running. Anonymous callers (public tools, no token) have the same tokens: their
// tasks are kept apart by their ids alone, 122 random bits, which act as bearer capabilities
// (as the extension's security notes have it); serve tools whose results are private to
// tokens. A task lives on the node that runs it: behind a load balancer, its
// polls need affinity. A client without the extension gets the result at once, and -32021 for
// the task methods and for the functions of Options.TasksRequired. A task whose function
// asks its client (Ask) waits with status input_required, its questions in tasks/get's
// inputRequests; tasks/update delivers inputResponses (some or all: it waits until every one
// is answered), then the function runs again from its start with the answers, as a stateless
// call does; unanswered for Options.StateTTL (1 h), the task ends cancelled. A function of
// Options.AskBeforeTask asks before it is a task: its call runs at once until the function
// asks; a question the request does not answer is an input_required round (no task), one it
// answers makes the call a task there, which runs on. Its task's slot is taken before the
// function runs (and given back after a round with no task): past the bound, the call is
// refused without running. Not supported yet: status
// notifications.
//
// Not supported yet: OAuth authorization, the server's own stream (GET), resuming a broken
// stream (Last-Event-ID), resource update notifications (resources/subscribe is accepted), and
// completion suggestions (completion/complete answers none).
package mcp
