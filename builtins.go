package fnapi

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/fnapi/fnapi/doc"
	"github.com/fnapi/fnapi/registry"
)

// RegisterBuiltins registers the built-in functions of every fnapi server, all public:
//
//   - echo: answers an object with the named arguments it was given (for testing);
//   - doc: describes the API (see package doc);
//   - get-api-version: answers the version the call was made at, as "MAJOR.MINOR".
func RegisterBuiltins(reg *registry.Registry) error {
	if err := reg.Register("echo", Echo, registry.Requires(registry.Public),
		registry.Describe("Answers an object with the same names and values as the arguments. For testing.")); err != nil {
		return err
	}
	if err := reg.Register("get-api-version", APIVersion, registry.Requires(registry.Public),
		registry.Describe("Answers the API version the call was made at, as MAJOR.MINOR.")); err != nil {
		return err
	}
	if err := doc.Register(reg); err != nil {
		return fmt.Errorf("fnapi: %w", err)
	}
	return nil
}

// MustRegisterBuiltins is like RegisterBuiltins but panics on an error.
func MustRegisterBuiltins(reg *registry.Registry) {
	if err := RegisterBuiltins(reg); err != nil {
		panic(err)
	}
}

// Echo is the echo function: it answers its arguments.
// Values are passed through as the JSON they were given, so numbers keep their precision.
func Echo(_ context.Context, args map[string]json.RawMessage) map[string]json.RawMessage {
	return args
}

// APIVersion is the get-api-version function.
func APIVersion(ctx context.Context) string {
	if c := registry.CallFrom(ctx); c != nil {
		return c.Version.String()
	}
	return ""
}
