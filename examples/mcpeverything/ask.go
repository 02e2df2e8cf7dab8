package main

import (
	"context"
	"encoding/json"

	"github.com/fnapi/fnapi/mcp"
	"github.com/fnapi/fnapi/registry"
)

// registerAsking registers the tools that ask the client during the call: its model
// (sampling) and its user (elicitation), through mcp.Request.
func registerAsking(reg *registry.Registry, opts ...registry.Option) error {
	if err := reg.Register("test_sampling", sample, append(opts, registry.Describe("Asks the client's model to answer a prompt."))...); err != nil {
		return err
	}
	if err := reg.Register("test_elicitation", elicit, append(opts, registry.Describe("Asks the client's user for a user name and an e-mail address."))...); err != nil {
		return err
	}
	for name, schema := range map[string]map[string]any{
		"test_elicitation_sep1034_defaults": defaultsSchema,
		"test_elicitation_sep1330_enums":    enumsSchema,
	} {
		fn := func(ctx context.Context) ([]mcp.Content, error) {
			res, err := mcp.Request(ctx, "elicitation/create", map[string]any{
				"message": "Please review and update the form fields", "requestedSchema": schema})
			if err != nil {
				return nil, err
			}
			return text("Elicitation completed: " + elicitation(res)), nil
		}
		if err := reg.Register(name, fn, append(opts, registry.Describe("Asks the client's user to fill in a form."))...); err != nil {
			return err
		}
	}
	return nil
}

func text(s string) []mcp.Content { return []mcp.Content{{Type: "text", Text: s}} }

func sample(ctx context.Context, in struct {
	Prompt string `json:"prompt" jsonschema:"description=The prompt to send to the LLM"`
}) ([]mcp.Content, error) {
	res, err := mcp.Request(ctx, "sampling/createMessage", map[string]any{
		"messages":  []mcp.Message{{Role: "user", Content: mcp.Content{Type: "text", Text: in.Prompt}}},
		"maxTokens": 100,
	})
	if err != nil {
		return nil, err
	}
	var m struct {
		Content mcp.Content `json:"content"`
	}
	_ = json.Unmarshal(res, &m) // an answer without text content answers empty
	return text("LLM response: " + m.Content.Text), nil
}

func elicit(ctx context.Context, in struct {
	Message string `json:"message" jsonschema:"description=The message to show the user"`
}) ([]mcp.Content, error) {
	res, err := mcp.Request(ctx, "elicitation/create", map[string]any{
		"message": in.Message,
		"requestedSchema": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"username": map[string]any{"type": "string", "description": "User's response"},
				"email":    map[string]any{"type": "string", "description": "User's email address"},
			},
			"required": []string{"username", "email"},
		},
	})
	if err != nil {
		return nil, err
	}
	return text("User response: " + elicitation(res)), nil
}

// elicitation says what an elicitation/create result holds.
func elicitation(res json.RawMessage) string {
	var m struct {
		Action  string          `json:"action"`
		Content json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(res, &m)
	return "action=" + m.Action + ", content=" + string(m.Content)
}

var defaultsSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"name":     map[string]any{"type": "string", "default": "John Doe"},
		"age":      map[string]any{"type": "integer", "default": 30},
		"score":    map[string]any{"type": "number", "default": 95.5},
		"status":   map[string]any{"type": "string", "enum": []string{"active", "inactive", "pending"}, "default": "active"},
		"verified": map[string]any{"type": "boolean", "default": true},
	},
}

func titled(prefix string, titles ...string) []map[string]string {
	var out []map[string]string
	for i, t := range titles {
		out = append(out, map[string]string{"const": prefix + string(rune('1'+i)), "title": t})
	}
	return out
}

var enumsSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"untitledSingle": map[string]any{"type": "string", "enum": []string{"option1", "option2", "option3"}},
		"titledSingle":   map[string]any{"type": "string", "oneOf": titled("value", "First Option", "Second Option", "Third Option")},
		"legacyEnum": map[string]any{"type": "string", "enum": []string{"opt1", "opt2", "opt3"},
			"enumNames": []string{"Option One", "Option Two", "Option Three"}},
		"untitledMulti": map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []string{"option1", "option2", "option3"}}},
		"titledMulti":   map[string]any{"type": "array", "items": map[string]any{"anyOf": titled("value", "First Choice", "Second Choice", "Third Choice")}},
	},
}
