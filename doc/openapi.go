package doc

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/internal/schemalink"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/stream"
	"github.com/fnapi/fnapi/version"
	"github.com/invopop/jsonschema"
)

// Names of the security schemes in the OpenAPI document: where a token may travel.
const (
	schemeSessionCookie = "sessionCookie"
	schemeSessionQuery  = "sessionQuery"
	schemeKeyHeader     = "keyHeader"
	schemeKeyQuery      = "keyQuery"
)

const (
	mediaJSON      = "application/json"
	mediaForm      = "application/x-www-form-urlencoded"
	mediaMultipart = "multipart/form-data"
)

// OpenAPI returns the OpenAPI 3.1 document, as JSON, of reg at version v: the same API as
// Describe, for Swagger UI and client generators.
//
// Each function is the path /<name> under the server {base}/<M.m> (and, at the latest version,
// {base}), with the server variable base defaulting to the mount path. GET takes each argument as a
// query parameter whose value is JSON; POST takes the arguments object as a JSON body, or as a
// form whose fields hold JSON. A 200 response holds the result message ({"type": "result",
// "result": ...}); 4XX and 5XX responses hold an error message. A streaming function is also the
// path /stream/<name>, answering messages as NDJSON or Server-Sent Events. Functions that need a
// token list the places it may travel as security requirements: the session cookie, the
// _session query parameter, the API key header and the _key query parameter (session only: the
// first two). The WebSocket is the path /ws, whose GET answers 101 and whose messages are the
// component schemas WSCall and WSAnswer: OpenAPI 3.1 cannot describe a WebSocket otherwise.
// The cookie, the header and the mount path are names' (the value the server was given with
// fnapi.WithNames; the zero value for a server that renames nothing); the doc function takes
// them from the transport serving it.
func OpenAPI(reg *registry.Registry, v version.Version, names decl.Names, opts ...Option) (json.RawMessage, error) {
	b, err := json.Marshal(openAPI(reg, v, newConfig(opts).withNames(names)))
	if err != nil {
		return nil, fmt.Errorf("doc: OpenAPI: %w", err)
	}
	return b, nil
}

func openAPI(reg *registry.Registry, v version.Version, cfg config) *oaDocument {
	d := &oaDocument{
		OpenAPI: "3.1.0",
		Info: oaInfo{
			Title:   cfg.title,
			Version: v.String(),
			Description: "Every response is one JSON message: {\"type\": \"result\", \"result\": ...} or " +
				"{\"type\": \"error\", \"error\": CODE, ...attributes}. Streams are messages of type chunk, " +
				"then end, or one error. The doc function describes the error codes.",
		},
		JSONSchemaDialect: SchemaDialect,
		Servers:           servers(reg, v, cfg),
		Paths:             map[string]*oaPathItem{},
		Components:        components(cfg),
	}
	d.Paths["/ws"] = wsPathItem()
	for name, s := range wsSchemas() {
		d.Components.Schemas[name] = s
	}
	for name, s := range errorSchemas(reg.Funcs(v)) {
		d.Components.Schemas[name] = s
	}

	for _, f := range reg.Funcs(v) {
		d.Paths["/"+f.Name] = &oaPathItem{
			Get:  operation(f, "get:"+f.Name, false, false),
			Post: operation(f, f.Name, true, false),
		}
		if f.Streaming {
			d.Paths["/stream/"+f.Name] = &oaPathItem{
				Get:  operation(f, "get:stream:"+f.Name, false, true),
				Post: operation(f, "stream:"+f.Name, true, true),
			}
		}
	}
	d.plainSchemas()
	return d
}

func servers(reg *registry.Registry, v version.Version, cfg config) []oaServer {
	base := map[string]oaServerVariable{"base": {
		Default:     cfg.names.MountPath,
		Description: "The path where the API is mounted, without a trailing slash.",
	}}
	s := []oaServer{{URL: "{base}/" + v.String(), Description: "Version " + v.String(), Variables: base}}
	if latest, ok := reg.Latest(); ok && latest == v {
		s = append(s, oaServer{URL: "{base}", Description: "The latest version", Variables: base})
	}
	return s
}

// operation describes a call of f over GET (the arguments in the query string) or POST (in the
// body), answering one message or, for stream, a stream of messages.
func operation(f *registry.Func, id string, post, stream bool) *oaOperation {
	op := &oaOperation{
		OperationID: id,
		Summary:     summary(f.Description),
		Description: describeOperation(f),
		Deprecated:  f.Until != nil,
		Security:    security(f.Access),
	}
	if op.Description == op.Summary {
		op.Description = ""
	}
	if post {
		op.RequestBody = requestBody(f)
	} else {
		op.Parameters = queryParameters(f)
	}
	if stream {
		op.Responses = map[string]oaResponse{"200": streamResponse(f)}
		return op
	}
	errRef := oaResponse{Ref: "#/components/responses/Error"}
	op.Responses = map[string]oaResponse{
		"200": {
			Description: "The result message.",
			Content:     map[string]oaMediaType{mediaJSON: {Schema: message("result", resultSchema(f))}},
		},
		"4XX": errRef,
		"5XX": errRef,
	}
	for status, r := range declaredResponses(f) {
		op.Responses[status] = r
	}
	httpSemantics(op, f, post)
	return op
}

// describeOperation returns f's description, with the error codes it declared and when it goes.
func describeOperation(f *registry.Func) string {
	parts := []string{}
	if f.Description != "" {
		parts = append(parts, f.Description)
	}
	if len(f.Errors) > 0 {
		parts = append(parts, "Error codes besides the framework's (with their HTTP status): "+declaredCodes(f)+".")
	}
	if f.Until != nil {
		parts = append(parts, "Removed or replaced in version "+f.Until.String()+".")
	}
	return strings.Join(parts, "\n\n")
}

// summary returns the first sentence of a description.
func summary(desc string) string {
	line, _, _ := strings.Cut(desc, "\n")
	if i := strings.Index(line, ". "); i >= 0 {
		return line[:i+1]
	}
	return line
}

// queryParameters describes f's arguments as query parameters whose values are JSON.
func queryParameters(f *registry.Func) []oaParameter {
	if f.AnyArgs {
		return []oaParameter{{
			Name:        "arguments",
			In:          "query",
			Description: "Any named arguments, each a query parameter whose value is JSON (text that is not JSON is a string).",
			Style:       "form",
			Explode:     true,
			Schema:      &jsonschema.Schema{Type: "object", AdditionalProperties: jsonschema.TrueSchema},
		}}
	}
	ps := make([]oaParameter, 0, len(f.Params))
	schemas := schemalink.Of(f).Params
	for i, p := range f.Params {
		ps = append(ps, oaParameter{
			Name:        p.Name,
			In:          "query",
			Description: schemas[i].Description,
			Required:    p.Required,
			Content:     map[string]oaMediaType{mediaJSON: {Schema: schemas[i]}},
		})
	}
	return ps
}

// requestBody describes f's arguments object as a JSON body, or as a form whose fields hold
// JSON values; nil for a function without arguments.
func requestBody(f *registry.Func) *oaRequestBody {
	if !f.AnyArgs && len(f.Params) == 0 {
		return nil
	}
	args := schemalink.Of(f).Args
	rb := &oaRequestBody{
		Description: fmt.Sprintf("The arguments object. Arguments in the query string are merged with it. "+
			"The body holds at most %d bytes (REQUEST-TOO-LARGE past it).", f.MaxBody),
		Content: map[string]oaMediaType{mediaJSON: {Schema: args}},
	}
	for _, p := range f.Params {
		rb.Required = rb.Required || p.Required
	}
	if f.AnyArgs {
		return rb
	}
	enc := make(map[string]oaEncoding, len(f.Params))
	for _, p := range f.Params {
		enc[p.Name] = oaEncoding{ContentType: mediaJSON}
	}
	rb.Content[mediaForm] = oaMediaType{Schema: args, Encoding: enc}
	rb.Content[mediaMultipart] = oaMediaType{Schema: args, Encoding: enc}
	return rb
}

// streamResponse describes the messages of a stream of f: chunk messages then end, or an error.
func streamResponse(f *registry.Func) oaResponse {
	one := &jsonschema.Schema{OneOf: []*jsonschema.Schema{
		message("chunk", schemalink.Of(f).Chunk),
		{Ref: "#/components/schemas/End"},
		{Ref: "#/components/schemas/Error"},
	}}
	// The default encoding (the first) carries the messages' schema; the others are text that
	// carries the same messages.
	content := make(map[string]oaMediaType)
	for i, e := range stream.Encodings() {
		if i == 0 {
			content[e.MediaType] = oaMediaType{Schema: withDescription(one, e.Messages)}
		} else {
			content[e.MediaType] = oaMediaType{Schema: &jsonschema.Schema{Type: "string", Description: e.Messages}}
		}
	}
	return oaResponse{
		Description: "A stream of messages: chunk messages, then one end message; or, on failure, one error message and no end. " +
			"Errors travel in the stream, so every stream answers 200.",
		Content: content,
	}
}

// message returns the schema of a message of type typ whose payload, in the attribute typ, has
// the schema payload.
func message(typ string, payload *jsonschema.Schema) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: jsonschema.NewProperties(), Required: []string{"type", typ}}
	s.Properties.Set("type", &jsonschema.Schema{Const: typ})
	s.Properties.Set(typ, payload)
	return s
}

func withDescription(s *jsonschema.Schema, d string) *jsonschema.Schema {
	s.Description = d
	return s
}

// security returns the security requirements of a function with access a: one of the places
// a token may travel (alternatives); none for a public function.
func security(a decl.Access) []map[string][]string {
	var names []string
	switch a {
	case decl.Public:
		return nil
	case decl.Session:
		names = []string{schemeSessionCookie, schemeSessionQuery}
	default:
		names = []string{schemeSessionCookie, schemeSessionQuery, schemeKeyHeader, schemeKeyQuery}
	}
	reqs := make([]map[string][]string, len(names))
	for i, n := range names {
		reqs[i] = map[string][]string{n: {}}
	}
	return reqs
}

func components(cfg config) oaComponents {
	var codes []any
	for _, d := range apierr.Catalogue() {
		codes = append(codes, string(d.Code()))
	}
	errSchema := &jsonschema.Schema{
		Type:        "object",
		Description: "An error message. Extra attributes detail the error; the doc function describes each code's, and the schemas Error-<CODE> the codes functions state.",
		Properties:  jsonschema.NewProperties(),
		Required:    []string{"type", "error"},
	}
	errSchema.Properties.Set("type", &jsonschema.Schema{Const: "error"})
	errSchema.Properties.Set("error", &jsonschema.Schema{
		Type:        "string",
		Description: "The error code: one of the framework's, or one the function declared.",
		Examples:    codes,
	})
	end := &jsonschema.Schema{Type: "object", Description: "The end of a stream.", Properties: jsonschema.NewProperties(), Required: []string{"type"}}
	end.Properties.Set("type", &jsonschema.Schema{Const: "end"})
	return oaComponents{
		Schemas: map[string]*jsonschema.Schema{"Error": errSchema, "End": end},
		Responses: map[string]oaResponse{"Error": {
			Description: "An error message.",
			Content:     map[string]oaMediaType{mediaJSON: {Schema: &jsonschema.Schema{Ref: "#/components/schemas/Error"}}},
		}},
		SecuritySchemes: map[string]oaSecurityScheme{
			schemeSessionCookie: {Type: "apiKey", In: "cookie", Name: cfg.names.SessionCookie, Description: "A session ID (session:<uuid>), as login sets it. With the cookie alone, a browser's request to a function not read-only also needs Sec-Fetch-Site: same-origin (or an Origin equal to the server's); a client that sends neither header (no browser) uses the cookie on every function."},
			schemeSessionQuery:  {Type: "apiKey", In: "query", Name: "_session", Description: "A session ID (session:<uuid>)."},
			schemeKeyHeader:     {Type: "apiKey", In: "header", Name: cfg.names.KeyHeader, Description: "An API key (secret:<uuid>)."},
			schemeKeyQuery:      {Type: "apiKey", In: "query", Name: "_key", Description: "An API key (secret:<uuid>)."},
		},
	}
}
