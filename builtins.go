package fnapi

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/doc"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/transport"
)

// RegisterBuiltins registers the built-in functions of every fnapi server, all public:
//
//   - echo: answers an object with the named arguments it was given (for testing);
//   - doc: describes the API (see package doc);
//   - get-api-version: answers the version the call was made at, as "MAJOR.MINOR";
//   - cancel: cancels a call running on the same WebSocket connection (see Cancel).
func RegisterBuiltins(reg *registry.Registry) error {
	if err := reg.Register("echo", Echo, registry.Requires(decl.Public),
		registry.Describe("Answers an object with the same names and values as the arguments. For testing.")); err != nil {
		return err
	}
	if err := reg.Register("get-api-version", APIVersion, registry.Requires(decl.Public),
		registry.Describe("Answers the API version the call was made at, as MAJOR.MINOR.")); err != nil {
		return err
	}
	if err := reg.Register("cancel", Cancel, registry.Requires(decl.Public),
		registry.Describe("Cancels the call with this id running on the same WebSocket connection; the cancelled call ends with a CANCELLED error. Answers true when such a call was running, false otherwise (always over HTTP).")); err != nil {
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

// CancelArgs are the arguments of the cancel function.
type CancelArgs struct {
	// ID is the id of the call to cancel, as the call message gave it: a string or a number.
	ID json.RawMessage `json:"id" jsonschema:"description=The id of the call to cancel: a string or a number."`
}

// Cancel is the cancel function: over WebSocket it cancels the call with the id in.ID running on
// the same connection, which then ends with a CANCELLED error carrying its own id, and answers
// true; it answers false when no such call runs, and always over HTTP.
func Cancel(ctx context.Context, in CancelArgs) bool {
	id := string(in.ID) // a number, as its text: the id 1 is "1"
	var s string
	if json.Unmarshal(in.ID, &s) == nil {
		id = s
	}
	return transport.CancelCall(ctx, id)
}
