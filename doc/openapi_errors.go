package doc

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/registry"
	"github.com/invopop/jsonschema"
)

// The codes a function states (registry.Errors) are described in the OpenAPI document twice
// over: each is the component schema Error-<CODE> (its message, with the declared attributes
// as properties), and each operation that answers one message lists, under the code's status,
// the schemas of the codes it stated with that status. The framework's other codes stay under
// 4XX and 5XX, as the schema Error.

// errorSchemaName returns the name of the component schema of code c.
func errorSchemaName(c apierr.Code) string { return "Error-" + string(c) }

// errorSchemas returns the component schemas of the codes fs state.
func errorSchemas(fs []*registry.Func) map[string]*jsonschema.Schema {
	out := map[string]*jsonschema.Schema{}
	for _, f := range fs {
		for _, d := range f.Errors {
			out[errorSchemaName(d.Code())] = errorSchema(d)
		}
	}
	return out
}

// errorSchema describes the error message of the code d declares.
func errorSchema(d *apierr.Declaration) *jsonschema.Schema {
	s := &jsonschema.Schema{
		Type:        "object",
		Description: fmt.Sprintf("%s HTTP status %d outside a stream.", d.Description(), d.Status()),
		Properties:  jsonschema.NewProperties(),
		Required:    []string{"type", "error"},
	}
	s.Properties.Set("type", &jsonschema.Schema{Const: "error"})
	s.Properties.Set("error", &jsonschema.Schema{Const: string(d.Code())})
	for _, a := range d.Attributes() {
		s.Properties.Set(a.Name(), &jsonschema.Schema{Type: a.Type(), Description: a.Meaning()})
	}
	return s
}

// declaredResponses returns the responses of the codes f states, by status: any of the
// schemas of the codes stated with that status, or the schema Error, since a framework code may
// share the status (CONFLICT and LIMIT-REACHED both answer 409), and an operation's response
// for a status replaces its 4XX or 5XX.
func declaredResponses(f *registry.Func) map[string]oaResponse {
	byStatus := map[int][]*apierr.Declaration{}
	for _, d := range f.Errors {
		byStatus[d.Status()] = append(byStatus[d.Status()], d)
	}
	out := map[string]oaResponse{}
	for status, ds := range byStatus {
		refs := make([]*jsonschema.Schema, 0, len(ds)+1)
		descs := make([]string, 0, len(ds)+1)
		for _, d := range ds {
			refs = append(refs, &jsonschema.Schema{Ref: "#/components/schemas/" + errorSchemaName(d.Code())})
			descs = append(descs, string(d.Code())+": "+d.Description())
		}
		refs = append(refs, &jsonschema.Schema{Ref: "#/components/schemas/Error"})
		descs = append(descs, "Or a framework code of this status (see Error).")
		out[strconv.Itoa(status)] = oaResponse{
			Description: strings.Join(descs, " "),
			Content:     map[string]oaMediaType{mediaJSON: {Schema: &jsonschema.Schema{AnyOf: refs}}},
		}
	}
	return out
}

// declaredCodes lists the codes f states, each with its status, for the operation's
// description.
func declaredCodes(f *registry.Func) string {
	codes := make([]string, len(f.Errors))
	for i, d := range f.Errors {
		codes[i] = fmt.Sprintf("%s (%d)", d.Code(), d.Status())
	}
	return strings.Join(slices.Compact(codes), ", ")
}
