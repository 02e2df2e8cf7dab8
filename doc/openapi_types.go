package doc

import "github.com/invopop/jsonschema"

// The parts of an OpenAPI 3.1 document that OpenAPI writes, in the specification's order of
// fields so that the document reads well.

type oaDocument struct {
	OpenAPI           string                 `json:"openapi"`
	Info              oaInfo                 `json:"info"`
	JSONSchemaDialect string                 `json:"jsonSchemaDialect"`
	Servers           []oaServer             `json:"servers"`
	Paths             map[string]*oaPathItem `json:"paths"`
	Components        oaComponents           `json:"components"`
}

type oaInfo struct {
	Title       string `json:"title"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
}

type oaServer struct {
	URL         string                      `json:"url"`
	Description string                      `json:"description,omitempty"`
	Variables   map[string]oaServerVariable `json:"variables,omitempty"`
}

type oaServerVariable struct {
	Default     string `json:"default"`
	Description string `json:"description,omitempty"`
}

type oaPathItem struct {
	Get  *oaOperation `json:"get,omitempty"`
	Post *oaOperation `json:"post,omitempty"`
}

type oaOperation struct {
	OperationID string                `json:"operationId"`
	Summary     string                `json:"summary,omitempty"`
	Description string                `json:"description,omitempty"`
	Parameters  []oaParameter         `json:"parameters,omitempty"`
	RequestBody *oaRequestBody        `json:"requestBody,omitempty"`
	Responses   map[string]oaResponse `json:"responses"`
	Deprecated  bool                  `json:"deprecated,omitempty"`
	Security    []map[string][]string `json:"security,omitempty"`
}

type oaParameter struct {
	Name        string                 `json:"name"`
	In          string                 `json:"in"`
	Description string                 `json:"description,omitempty"`
	Required    bool                   `json:"required,omitempty"`
	Style       string                 `json:"style,omitempty"`
	Explode     bool                   `json:"explode,omitempty"`
	Schema      *jsonschema.Schema     `json:"schema,omitempty"`
	Content     map[string]oaMediaType `json:"content,omitempty"`
}

type oaRequestBody struct {
	Description string                 `json:"description,omitempty"`
	Required    bool                   `json:"required,omitempty"`
	Content     map[string]oaMediaType `json:"content"`
}

type oaMediaType struct {
	Schema   *jsonschema.Schema    `json:"schema"`
	Encoding map[string]oaEncoding `json:"encoding,omitempty"`
}

type oaEncoding struct {
	ContentType string `json:"contentType"`
}

// oaResponse is a Response Object, or a Reference Object when Ref is set.
type oaResponse struct {
	Ref         string                 `json:"$ref,omitempty"`
	Description string                 `json:"description,omitempty"`
	Headers     map[string]oaHeader    `json:"headers,omitempty"`
	Content     map[string]oaMediaType `json:"content,omitempty"`
}

type oaHeader struct {
	Description string             `json:"description,omitempty"`
	Schema      *jsonschema.Schema `json:"schema"`
}

type oaComponents struct {
	Schemas         map[string]*jsonschema.Schema `json:"schemas"`
	Responses       map[string]oaResponse         `json:"responses"`
	SecuritySchemes map[string]oaSecurityScheme   `json:"securitySchemes"`
}

type oaSecurityScheme struct {
	Type        string `json:"type"`
	Name        string `json:"name"`
	In          string `json:"in"`
	Description string `json:"description,omitempty"`
}
