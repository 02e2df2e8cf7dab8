package pvql

import "github.com/invopop/jsonschema"

// JSONSchema returns the schema of a row as it marshals: the pair [keys, values], keys strings
// or integers, values numbers or null. Reflection alone would describe the Go struct, which the
// wire never shows; client generators build their types from this schema.
func (Row) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type:        "array",
		Description: "One group: [keys in BY order, values in order].",
		PrefixItems: []*jsonschema.Schema{
			{Type: "array", Description: "The group's keys: addresses and names as strings, ports, protocol numbers and times (Unix seconds) as integers.",
				Items: &jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Type: "string"}, {Type: "integer"}}}},
			{Type: "array", Description: "The statement's values; null where a division by zero left none.",
				Items: &jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Type: "number"}, {Type: "null"}}}},
		},
		Items:    jsonschema.FalseSchema,
		MinItems: ptr(uint64(2)),
	}
}

func ptr[T any](v T) *T { return &v }
