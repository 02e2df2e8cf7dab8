package doc

import (
	"context"

	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/version"
)

// Args are the arguments of the doc function.
type Args struct {
	// Format selects the document: "fnapi" (the default) for an API, "openapi" for an
	// OpenAPI 3.1 document.
	Format string `json:"format,omitempty" jsonschema:"enum=fnapi,enum=openapi,description=fnapi (the default) for the API description or openapi for an OpenAPI 3.1 document of the same API"`
}

// Register adds the public function doc to reg. Called at a version, doc answers the
// description of reg at that version (an API); with the argument format "openapi", the OpenAPI
// 3.1 document of it, which the options configure.
func Register(reg *registry.Registry, opts ...Option) error {
	cfg := newConfig(opts)
	return reg.Register("doc", func(ctx context.Context, in Args) (any, error) {
		v := callVersion(ctx, reg)
		if in.Format == "openapi" {
			return openAPI(reg, v, cfg.withNames(registry.CallFrom(ctx).Names())), nil
		}
		return Describe(reg, v), nil
	}, registry.Requires(decl.Public),
		registry.Describe("Describes the functions of this API version: arguments, results, streaming and errors. With format \"openapi\", as an OpenAPI 3.1 document."))
}

// callVersion returns the version the call was made at; the latest outside a call.
func callVersion(ctx context.Context, reg *registry.Registry) version.Version {
	if c := registry.CallFrom(ctx); c != nil {
		return c.Version
	}
	v, _ := reg.Latest()
	return v
}
