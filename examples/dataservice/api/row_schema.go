package api

// JSONSchemaAlias gives a row the JSON Schema of what it marshals to, [keys, values]: an array
// of exactly two arrays. Schema reflection (github.com/invopop/jsonschema, which the registry
// uses) calls it; without it the schema would describe the Go struct, an object with Keys and
// Values that the wire never has, and a generated client would read rows wrongly. It needs no
// import, so that the package keeps its short list.
func (Row) JSONSchemaAlias() any { return [2][]any{} }
