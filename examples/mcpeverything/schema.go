package main

import (
	"encoding/json"

	"github.com/fnapi/fnapi/mcp"
	"github.com/fnapi/fnapi/registry"
)

// contactSchema is json_schema_2020_12_tool's input schema, written by hand: what its Go
// arguments cannot say (a phone or an email, the one contactMethod names) it says with
// JSON Schema 2020-12's $defs, allOf/anyOf and if/then/else, shown to clients as written.
const contactSchema = `{
	"$schema": "https://json-schema.org/draft/2020-12/schema",
	"type": "object",
	"$defs": {
		"address": {
			"$anchor": "addressDef",
			"type": "object",
			"properties": {"street": {"type": "string"}, "city": {"type": "string"}}
		}
	},
	"properties": {
		"name": {"type": "string"},
		"address": {"$ref": "#/$defs/address"},
		"contactMethod": {"type": "string", "enum": ["phone", "email"]},
		"phone": {"type": "string"},
		"email": {"type": "string"}
	},
	"allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
	"if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
	"then": {"required": ["phone"]},
	"else": {"required": ["email"]},
	"additionalProperties": false
}`

// inputSchemas are the tools' hand-written input schemas (mcp.Options.InputSchemas).
var inputSchemas = map[string]json.RawMessage{"json_schema_2020_12_tool": json.RawMessage(contactSchema)}

type address struct {
	Street string `json:"street,omitempty"`
	City   string `json:"city,omitempty"`
}

type contact struct {
	Name          string   `json:"name,omitempty"`
	Address       *address `json:"address,omitempty"`
	ContactMethod string   `json:"contactMethod,omitempty" jsonschema:"enum=phone,enum=email"`
	Phone         string   `json:"phone,omitempty"`
	Email         string   `json:"email,omitempty"`
}

// registerSchema registers json_schema_2020_12_tool, and test_header_param, whose argument
// region a stateless client repeats in the header Mcp-Param-Region.
func registerSchema(reg *registry.Registry, public registry.Option) error {
	if err := reg.Register("json_schema_2020_12_tool", func(c contact) []mcp.Content {
		return []mcp.Content{{Type: "text", Text: "ok"}}
	}, public, registry.Describe("Tool with JSON Schema 2020-12 features")); err != nil {
		return err
	}
	return reg.Register("test_header_param", func(in struct {
		Region string `json:"region" jsonschema:"description=Where to run" jsonschema_extras:"x-mcp-header=Region"`
	}) string {
		return "region " + in.Region
	}, public, registry.Describe("Answers the region it was given, which clients repeat in the header Mcp-Param-Region."))
}
