package targets

import (
	"fmt"
	"net/http"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/registry"
)

// fnapiHandler serves fnapi's built-ins under /api with fnapi.New's defaults.
func fnapiHandler() (http.Handler, error) {
	reg := registry.New()
	if err := fnapi.RegisterBuiltins(reg); err != nil {
		return nil, fmt.Errorf("targets: fnapi: %w", err)
	}
	api, err := fnapi.New(reg)
	if err != nil {
		return nil, fmt.Errorf("targets: fnapi: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", api))
	return mux, nil
}
