package doc

import (
	"context"
	"fmt"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/version"
	"github.com/invopop/jsonschema"
)

// SchemaDialect is the JSON Schema dialect of every schema in a description.
const SchemaDialect = "https://json-schema.org/draft/2020-12/schema"

// API is the description of an API at one version.
type API struct {
	// Version is the version described.
	Version version.Version `json:"version"`
	// Versions lists every version served, oldest first.
	Versions []version.Version `json:"versions"`
	// Functions describes the functions of Version, by name.
	Functions []Function `json:"functions"`
	// Errors lists the framework's error codes, which any function may return.
	Errors []apierr.Code `json:"errors"`
}

// Function describes one function.
type Function struct {
	Name        string             `json:"name"`
	Description string             `json:"description,omitempty"`
	Since       version.Version    `json:"since"`
	Auth        string             `json:"auth"`
	Arguments   *jsonschema.Schema `json:"arguments"`
	Result      *jsonschema.Schema `json:"result,omitempty"`
	Streaming   *Streaming         `json:"streaming,omitempty"`
	// Errors lists the codes the function declared besides the framework's.
	Errors []apierr.Code `json:"errors"`
}

// Streaming describes the chunks of a streaming function.
type Streaming struct {
	// Chunk is the schema of one chunk.
	Chunk *jsonschema.Schema `json:"chunk"`
	// Accumulate says how chunks build the non-streaming result: append, replace or custom.
	Accumulate string `json:"accumulate"`
}

// Describe returns the description of reg at version v.
func Describe(reg *registry.Registry, v version.Version) API {
	api := API{Version: v, Versions: reg.Versions(), Errors: apierr.Catalogue}
	for _, f := range reg.Funcs(v) {
		fn := Function{
			Name:        f.Name,
			Description: f.Description,
			Since:       f.Since,
			Auth:        f.Access.String(),
			Arguments:   withDialect(f.ArgsSchema),
			Result:      f.ResultSchema,
			Errors:      append([]apierr.Code{}, f.Errors...),
		}
		if f.Streaming {
			fn.Streaming = &Streaming{Chunk: f.ChunkSchema, Accumulate: f.Accumulator.Mode}
		}
		api.Functions = append(api.Functions, fn)
	}
	return api
}

// withDialect returns a copy of s that names its dialect.
func withDialect(s *jsonschema.Schema) *jsonschema.Schema {
	c := *s
	c.Version = SchemaDialect
	return &c
}

// Args are the arguments of the doc function.
type Args struct {
	Format string `json:"format,omitempty" jsonschema:"enum=fnapi,enum=openapi,description=fnapi (the default) or openapi for an OpenAPI 3.1 document"`
}

// Register adds the public function doc, describing reg at the version it is called at.
func Register(reg *registry.Registry) error {
	return reg.Register("doc", func(ctx context.Context, in Args) (any, error) {
		v := callVersion(ctx, reg)
		if in.Format == "openapi" {
			return OpenAPI(reg, v), nil
		}
		return Describe(reg, v), nil
	}, registry.Requires(registry.Public),
		registry.Describe("Describes the API functions of this version: arguments, results, streaming and errors."))
}

func callVersion(ctx context.Context, reg *registry.Registry) version.Version {
	if c := registry.CallFrom(ctx); c != nil {
		return c.Version
	}
	v, _ := reg.Latest()
	return v
}

var _ = fmt.Sprint
