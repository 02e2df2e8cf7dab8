package doc_test

import (
	"encoding/json"
	"testing"

	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/doc"
	"github.com/fnapi/fnapi/version"
)

func TestOpenAPIGolden(t *testing.T) {
	t.Parallel()
	b, err := doc.OpenAPI(sample(t), version.MustParse("1.1"), decl.Names{})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "openapi-1.1.json", b)
}

// renamed are the names of a server that renames all three.
var renamed = decl.Names{MountPath: "/v", SessionCookie: "sid", KeyHeader: "X-Key"}

func TestOpenAPIValidates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		version string
		names   decl.Names
		opts    []doc.Option
	}{
		{"1.0", "1.0", decl.Names{}, nil},
		{"1.1", "1.1", decl.Names{}, nil},
		{"options", "1.1", renamed, []doc.Option{doc.Title("Notes")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := doc.OpenAPI(sample(t), version.MustParse(tt.version), tt.names, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			validate(t, "openapi", b)
		})
	}
}

// TestValidatorRejects makes sure the validator the tests rely on does find faults.
func TestValidatorRejects(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, mode, doc string }{
		{"no info", "openapi", `{"openapi":"3.1.0","paths":{}}`},
		{"OpenAPI 3.0", "openapi", `{"openapi":"3.0.3","info":{"title":"x","version":"1"},"paths":{}}`},
		{"bad schema type", "openapi", `{"openapi":"3.1.0","info":{"title":"x","version":"1"},"paths":{},"components":{"schemas":{"X":{"type":"strin"}}}}`},
		{"bad argument schema", "fnapi", `{"functions":[{"name":"f","arguments":{"required":"a"},"result":{}}]}`},
		{"value off its schema", "values", `{"doc":{"functions":[{"name":"f","result":{"type":"integer"}}]},"values":[{"function":"f","result":"x"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if out, err := runValidator(t, tt.mode, []byte(tt.doc)); err == nil {
				t.Errorf("accepted: %s", out)
			}
		})
	}
}

func TestOpenAPI(t *testing.T) {
	t.Parallel()
	b, err := doc.OpenAPI(sample(t), version.MustParse("1.1"), renamed, doc.Title("Notes"))
	if err != nil {
		t.Fatal(err)
	}
	var d map[string]any
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	b10, _ := doc.OpenAPI(sample(t), version.MustParse("1.0"), decl.Names{})
	var d10 map[string]any
	if err := json.Unmarshal(b10, &d10); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		doc  map[string]any
		path []string
		want string // JSON; "" means absent
	}{
		{"version", d, []string{"openapi"}, `"3.1.0"`},
		{"title", d, []string{"info", "title"}, `"Notes"`},
		{"API version", d, []string{"info", "version"}, `"1.1"`},
		{"versioned server", d, []string{"servers", "0", "url"}, `"{base}/1.1"`},
		{"mount path", d, []string{"servers", "0", "variables", "base", "default"}, `"/v"`},
		{"latest also unversioned", d, []string{"servers", "1", "url"}, `"{base}"`},
		{"older version only versioned", d10, []string{"servers", "1"}, ``},
		{"functions of the version only", d10, []string{"paths", "/count"}, ``},
		{"POST operation", d, []string{"paths", "/greet", "post", "operationId"}, `"greet"`},
		{"GET operation", d, []string{"paths", "/greet", "get", "operationId"}, `"get:greet"`},
		{"GET argument as JSON", d, []string{"paths", "/greet", "get", "parameters", "0", "content", "application/json", "schema", "type"}, `"string"`},
		{"GET required argument", d, []string{"paths", "/greet", "get", "parameters", "0", "required"}, `true`},
		{"GET optional argument", d, []string{"paths", "/greet", "get", "parameters", "1", "required"}, ``},
		{"GET argument description", d, []string{"paths", "/greet", "get", "parameters", "0", "description"}, `"Name is who to greet."`},
		{"POST JSON body", d, []string{"paths", "/greet", "post", "requestBody", "content", "application/json", "schema", "required"}, `["name"]`},
		{"POST form fields are JSON", d, []string{"paths", "/greet", "post", "requestBody", "content", "multipart/form-data", "encoding", "tags", "contentType"}, `"application/json"`},
		{"no body without arguments", d, []string{"paths", "/forget", "post", "requestBody"}, ``},
		{"result message", d, []string{"paths", "/add", "post", "responses", "200", "content", "application/json", "schema", "properties", "result", "type"}, `"integer"`},
		{"result message type", d, []string{"paths", "/add", "post", "responses", "200", "content", "application/json", "schema", "properties", "type", "const"}, `"result"`},
		{"error responses", d, []string{"paths", "/add", "post", "responses", "4XX", "$ref"}, `"#/components/responses/Error"`},
		{"summary from the description", d, []string{"paths", "/greet", "post", "summary"}, `"Greet says hello to someone."`},
		{"declared errors", d, []string{"paths", "/find", "post", "description"}, `"Find answers the note named name, or NOT-FOUND.\n\nError codes besides the framework's (with their HTTP status): NOT-A-NOTE (422), NOT-FOUND (404)."`},
		{"declared code's status", d, []string{"paths", "/find", "post", "responses", "422", "content", "application/json", "schema", "anyOf", "0", "$ref"}, `"#/components/schemas/Error-NOT-A-NOTE"`},
		{"declared code's description", d, []string{"paths", "/find", "get", "responses", "422", "description"}, `"NOT-A-NOTE: The name is that of something other than a note. Or a framework code of this status (see Error)."`},
		{"a stated framework code's status", d, []string{"paths", "/find", "post", "responses", "404", "content", "application/json", "schema", "anyOf", "0", "$ref"}, `"#/components/schemas/Error-NOT-FOUND"`},
		{"a framework code may share the status", d, []string{"paths", "/find", "post", "responses", "404", "content", "application/json", "schema", "anyOf", "1", "$ref"}, `"#/components/schemas/Error"`},
		{"declared code's message", d, []string{"components", "schemas", "Error-NOT-A-NOTE", "properties", "error", "const"}, `"NOT-A-NOTE"`},
		{"declared code's schema description", d, []string{"components", "schemas", "Error-NOT-A-NOTE", "description"}, `"The name is that of something other than a note. HTTP status 422 outside a stream."`},
		{"declared attribute", d, []string{"components", "schemas", "Error-NOT-A-NOTE", "properties", "name"}, `{"description":"the name given","type":"string"}`},
		{"declared attribute without a type", d, []string{"components", "schemas", "Error-NOT-A-NOTE", "properties", "kind"}, `{"description":"what the name is instead"}`},
		{"no declared code at 1.0", d10, []string{"components", "schemas", "Error-NOT-A-NOTE"}, ``},
		{"public has no security", d, []string{"paths", "/greet", "post", "security"}, ``},
		{"token: four places", d, []string{"paths", "/add", "post", "security"}, `[{"sessionCookie":[]},{"sessionQuery":[]},{"keyHeader":[]},{"keyQuery":[]}]`},
		{"session: no API key", d, []string{"paths", "/find", "get", "security"}, `[{"sessionCookie":[]},{"sessionQuery":[]}]`},
		{"cookie scheme", d, []string{"components", "securitySchemes", "sessionCookie"}, `{"description":"A session ID (session:\u003cuuid\u003e), as login sets it. With the cookie alone, a browser's request to a function not read-only also needs Sec-Fetch-Site: same-origin (or an Origin equal to the server's); a client that sends neither header (no browser) uses the cookie on every function.","in":"cookie","name":"sid","type":"apiKey"}`},
		{"header scheme", d, []string{"components", "securitySchemes", "keyHeader", "name"}, `"X-Key"`},
		{"query schemes", d, []string{"components", "securitySchemes", "keyQuery", "name"}, `"_key"`},
		{"stream path", d, []string{"paths", "/stream/count", "post", "operationId"}, `"stream:count"`},
		{"stream as NDJSON", d, []string{"paths", "/stream/count", "get", "responses", "200", "content", "application/x-ndjson", "schema", "oneOf", "0", "properties", "chunk", "properties", "n", "type"}, `"integer"`},
		{"stream ends", d, []string{"paths", "/stream/count", "get", "responses", "200", "content", "application/x-ndjson", "schema", "oneOf", "1", "$ref"}, `"#/components/schemas/End"`},
		{"no stream path for others", d, []string{"paths", "/stream/greet"}, ``},
		{"any arguments", d, []string{"paths", "/doc", "get", "parameters", "0", "name"}, `"format"`},
		{"error message", d, []string{"components", "schemas", "Error", "required"}, `["type","error"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, ok := lookup(tt.doc, tt.path)
			got := ""
			if ok {
				b, _ := json.Marshal(v)
				got = string(b)
			}
			if got != tt.want {
				t.Errorf("%v = %s, want %s", tt.path, got, tt.want)
			}
		})
	}
}

// lookup follows object keys and array indexes through a decoded JSON value.
func lookup(v any, path []string) (any, bool) {
	for _, k := range path {
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[k]
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			var i int
			if err := json.Unmarshal([]byte(k), &i); err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}
