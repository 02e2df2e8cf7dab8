package doc

import (
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/version"
)

// OpenAPI returns an OpenAPI 3.1 document of reg at version v.
func OpenAPI(reg *registry.Registry, v version.Version) map[string]any {
	return map[string]any{"openapi": "3.1.0", "info": map[string]any{"title": "API", "version": v.String()}, "paths": map[string]any{}}
}
