package mcp

import (
	"crypto/rand"
	"encoding/json"
	"time"
)

// Options configures the MCP endpoint. The zero value is usable: each field names its default.
type Options struct {
	// Name and Version are the serverInfo the initialize answer gives. Defaults: "fnapi" and
	// the latest API version served.
	Name, Version string
	// Instructions tell the client's model how to use the tools; sent in the initialize answer.
	// Default: none.
	Instructions string
	// Resources are what the application publishes to read (resources/list, resources/read).
	// Default: none, and no resources capability.
	Resources []Resource
	// Descriptions replace the descriptions of functions, by name, in tools/list: doc's
	// description is written for programmers, a tool's is read by a model choosing what to
	// call and how. Default: each function's own.
	Descriptions map[string]string
	// InputSchemas replace the input schemas of functions, by name, in tools/list: a
	// hand-written JSON Schema 2020-12 object (its "$schema", "$defs", "allOf", "if"...) for a
	// function whose arguments say more than their Go types can (one of two fields required,
	// say). It is shown as written; the arguments are still checked as the function declares
	// them, then by the function. New panics when one is not a JSON object. Default: each
	// function's own, derived from its Go types.
	InputSchemas map[string]json.RawMessage
	// Prompts are the prompt templates the application offers (prompts/list, prompts/get).
	// Default: none, and no prompts capability.
	Prompts []Prompt
	// PageSize is how many tools one tools/list answer holds; nextCursor gives the rest.
	// Default: 100.
	PageSize int
	// MaxSessions bounds the sessions kept at once, the last resort behind SessionsPerCaller;
	// past it, once expired ones are dropped, an initialize answers HTTP 503. Default: 10,000.
	MaxSessions int
	// SessionsPerCaller bounds the sessions of one caller: a user (whichever of its tokens
	// started them), or for anonymous callers an address (IPv6: its /64). Past it, an initialize
	// ends the caller's least recently used session that runs no call (its next request answers
	// 404, and its client starts a new one), or answers HTTP 429 when each runs one: a caller
	// never takes the room of others. Default: 16.
	SessionsPerCaller int
	// SessionIdle ends a session unused this long (the next request with its id answers 404,
	// and the client starts a new one). Default: 1 h.
	SessionIdle time.Duration
	// MaxBytes is the largest request body. Default: 1 MiB.
	MaxBytes int64
	// StateKey signs the requestState of a stateless call that asks its client (see Ask): a
	// client cannot forge or alter the answers it carries. Nodes that serve one client behind
	// a load balancer share it (at least 32 bytes). Default: random per process, so that a
	// call asking its client finishes on the node that asked.
	StateKey []byte
	// Tasks names the functions whose tools/call runs as a task (besides every streaming
	// function) for a stateless client that declares the extension io.modelcontextprotocol/
	// tasks: the call answers a task id at once, the client polls tasks/get and may
	// tasks/cancel. A task lives on the node that runs it. Default: none.
	Tasks []string
	// TasksRequired names functions that run only as tasks, as Tasks does for a client of the
	// extension; a stateless client that did not declare it gets CodeMissingCapability (HTTP
	// 400) with data.requiredCapabilities. Clients of 2025-11-25 sessions, which have no
	// tasks, call them as any tool. Default: none.
	TasksRequired []string
	// AskBeforeTask names functions of Tasks or TasksRequired that ask their client before
	// they become a task (the tasks extension's composition of multi-round trips and tasks):
	// their call runs at once until the function asks (Ask). A question the request does not
	// answer ends the round with an input_required result, as a stateless call's, and no
	// task; a question the request answers (from its inputResponses and requestState) makes
	// the call a task there and then, answered {resultType: "task"}, and the function runs
	// on in it; a later question waits in the task, as any task's. A function that ends
	// without asking is a task already ended. Default: none.
	AskBeforeTask []string
	// TasksPerCaller bounds the tasks of one caller (running, or ended and kept); past it a
	// call that would be a task answers an error. Default: 16.
	TasksPerCaller int
	// MaxTasks bounds the tasks kept at once. Default: 10,000.
	MaxTasks int
	// TaskTTL is how long an ended task stays readable (its ttlMs). Default: 1 h.
	TaskTTL time.Duration
	// MaxTaskResultBytes bounds the result a task keeps for tasks/get (the tool's result as
	// JSON): a larger one is not kept, and the task fails with the protocol error
	// REQUEST-TOO-LARGE (code -32000, data {"error": "REQUEST-TOO-LARGE", "limit": n}).
	// Default: 1 MiB.
	MaxTaskResultBytes int64
	// StateTTL is how long a requestState stays valid: the client's user has that long to
	// answer. Default: 1 h.
	StateTTL time.Duration
}

// Resource is one thing the application publishes for a client to read: the result of a
// function of the registry, called through the same interceptors as every other call (so a
// resource needs the token its function needs). A result that is a string is the resource's
// text, a []byte its binary content (blob), anything else its JSON text.
type Resource struct {
	// URI names the resource ("doc://api"). With a URITemplate instead, the resource is a
	// template: "test://template/{id}/data" matches a URI whose {id} segment becomes the
	// function's argument id (a JSON string).
	URI, URITemplate string
	// Name, Title and Description describe it to the client and its model.
	Name, Title, Description string
	// MIMEType is the type of its content. Default: text/plain for a string, application/json
	// otherwise.
	MIMEType string
	// Function is the function whose result is the content; Args its arguments.
	Function string
	Args     map[string]any
	// Text is the content of a resource without Function: static text that needs no token.
	Text string
}

// Prompt is a prompt template the application offers: prompts/get calls Function with the
// prompt's arguments (each a JSON string), whose result is the prompt: a string (one user
// message), or a list of messages ([]Message, or any JSON of that shape). The prompt's
// arguments are the function's, with their descriptions.
type Prompt struct {
	// Name is the prompt's name; Title and Description describe it.
	Name, Title, Description string
	// Function makes the prompt.
	Function string
	// Text is the prompt without Function: one user message, with no arguments.
	Text string
}

// Message is one message of a prompt.
type Message struct {
	// Role is "user" or "assistant".
	Role string `json:"role"`
	// Content is the message's content.
	Content Content `json:"content"`
}

// Content is a block of content in a tool's result, a prompt message or a resource: text, an
// image, audio, or an embedded resource. A function whose result is []Content has those
// blocks as its tool result's content (no structured content).
type Content struct {
	// Type is "text", "image", "audio" or "resource".
	Type string `json:"type"`
	// Text is the text of a text block.
	Text string `json:"text,omitempty"`
	// Data is the base64 of an image or audio block; MIMEType its type.
	Data     string `json:"data,omitempty"`
	MIMEType string `json:"mimeType,omitempty"`
	// Resource is the embedded resource of a resource block.
	Resource *ResourceContents `json:"resource,omitempty"`
}

// ResourceContents is the content of a resource: Text, or Blob (base64).
type ResourceContents struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     string `json:"blob,omitempty"`
}

func (o Options) withDefaults() Options {
	if o.Name == "" {
		o.Name = "fnapi"
	}
	if o.PageSize <= 0 {
		o.PageSize = 100
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = 10_000
	}
	if o.SessionsPerCaller <= 0 {
		o.SessionsPerCaller = 16
	}
	if o.SessionIdle <= 0 {
		o.SessionIdle = time.Hour
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 1 << 20
	}
	if len(o.StateKey) == 0 {
		o.StateKey = make([]byte, 32)
		_, _ = rand.Read(o.StateKey)
	}
	if o.TasksPerCaller <= 0 {
		o.TasksPerCaller = 16
	}
	if o.MaxTasks <= 0 {
		o.MaxTasks = 10_000
	}
	if o.TaskTTL <= 0 {
		o.TaskTTL = time.Hour
	}
	if o.MaxTaskResultBytes <= 0 {
		o.MaxTaskResultBytes = 1 << 20
	}
	if o.StateTTL <= 0 {
		o.StateTTL = time.Hour
	}
	return o
}
