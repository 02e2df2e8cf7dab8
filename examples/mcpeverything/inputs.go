package main

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/fnapi/fnapi/mcp"
	"github.com/fnapi/fnapi/registry"
)

// registerInputs registers the tools and the prompt function that ask their client with
// mcp.Ask: input_required results of 2026-07-28, requests of the server in a session.
func registerInputs(reg *registry.Registry, opts ...registry.Option) error {
	for name, fn := range map[string]any{
		"test_input_required_result_elicitation":     askName,
		"test_input_required_result_sampling":        askCapital,
		"test_input_required_result_list_roots":      askRoots,
		"test_input_required_result_request_state":   askConfirm,
		"test_input_required_result_tampered_state":  askConfirm,
		"test_input_required_result_multiple_inputs": askAll,
		"test_input_required_result_multi_round":     askTwice,
		"test_input_required_result_capabilities":    askWhatItCan,
		"input-required-prompt":                      askContext,
		"test_streaming_elicitation":                 askName,
		"test_missing_capability":                    needModel,
	} {
		if err := reg.Register(name, fn, append(opts, registry.Describe("Asks its client before it answers."))...); err != nil {
			return err
		}
	}
	return nil
}

// form is an elicitation of one property of type typ.
func form(message, property, typ string) mcp.Input {
	return mcp.Input{Method: "elicitation/create", Params: map[string]any{
		"message": message,
		"requestedSchema": map[string]any{"type": "object",
			"properties": map[string]any{property: map[string]any{"type": typ}}, "required": []string{property}},
	}}
}

// question is a sampling request of one user message.
func question(text string, maxTokens int) mcp.Input {
	return mcp.Input{Method: "sampling/createMessage", Params: map[string]any{
		"messages":  []mcp.Message{{Role: "user", Content: mcp.Content{Type: "text", Text: text}}},
		"maxTokens": maxTokens,
	}}
}

var roots = mcp.Input{Method: "roots/list", Params: map[string]any{}}

// field is the string property of an elicitation's content.
func field(res json.RawMessage, property string) string {
	var m struct {
		Content map[string]any `json:"content"`
	}
	_ = json.Unmarshal(res, &m)
	s, _ := m.Content[property].(string)
	return s
}

func askName(ctx context.Context) ([]mcp.Content, error) {
	a, err := mcp.Ask(ctx, map[string]mcp.Input{"user_name": form("What is your name?", "name", "string")})
	if err != nil {
		return nil, err
	}
	return text("Hello, " + field(a["user_name"], "name") + "!"), nil
}

func askCapital(ctx context.Context) ([]mcp.Content, error) {
	a, err := mcp.Ask(ctx, map[string]mcp.Input{"capital_question": question("What is the capital of France?", 100)})
	if err != nil {
		return nil, err
	}
	var m struct {
		Content mcp.Content `json:"content"`
	}
	_ = json.Unmarshal(a["capital_question"], &m)
	return text("LLM response: " + m.Content.Text), nil
}

func askRoots(ctx context.Context) ([]mcp.Content, error) {
	a, err := mcp.Ask(ctx, map[string]mcp.Input{"client_roots": roots})
	if err != nil {
		return nil, err
	}
	return text("Roots: " + string(a["client_roots"])), nil
}

// askConfirm answers once its requestState came back intact (the framework checks it).
func askConfirm(ctx context.Context) ([]mcp.Content, error) {
	if _, err := mcp.Ask(ctx, map[string]mcp.Input{"confirm": form("Please confirm", "ok", "boolean")}); err != nil {
		return nil, err
	}
	return text("Confirmed: state-ok"), nil
}

func askAll(ctx context.Context) ([]mcp.Content, error) {
	a, err := mcp.Ask(ctx, map[string]mcp.Input{
		"user_name":    form("What is your name?", "name", "string"),
		"greeting":     question("Generate a greeting", 50),
		"client_roots": roots,
	})
	if err != nil {
		return nil, err
	}
	return text("Hello, " + field(a["user_name"], "name") + ", with " + string(a["greeting"]) + " and " + string(a["client_roots"])), nil
}

// askTwice asks one question, then, answered, another: two rounds.
func askTwice(ctx context.Context) ([]mcp.Content, error) {
	a1, err := mcp.Ask(ctx, map[string]mcp.Input{"step1": form("Step 1: What is your name?", "name", "string")})
	if err != nil {
		return nil, err
	}
	a2, err := mcp.Ask(ctx, map[string]mcp.Input{"step2": form("Step 2: What is your favorite color?", "color", "string")})
	if err != nil {
		return nil, err
	}
	return text(field(a1["step1"], "name") + " likes " + field(a2["step2"], "color")), nil
}

// askWhatItCan asks its user if the client has one, and its model.
func askWhatItCan(ctx context.Context) ([]mcp.Content, error) {
	var got []string
	for key, q := range map[string]mcp.Input{"user": form("What is your name?", "name", "string"), "model": question("Say hi", 10)} {
		a, err := mcp.Ask(ctx, map[string]mcp.Input{key: q})
		switch {
		case errors.Is(err, mcp.ErrNoClient):
			continue
		case err != nil:
			return nil, err
		}
		got = append(got, string(a[key]))
	}
	return text("Asked what the client can answer: " + strings.Join(got, ", ")), nil
}

// needModel cannot answer without its client's model.
func needModel(ctx context.Context) ([]mcp.Content, error) {
	a, err := mcp.Ask(ctx, map[string]mcp.Input{"model": question("Say hi", 10)})
	if err != nil {
		return nil, err
	}
	return text("The model said: " + string(a["model"])), nil
}

// askContext makes the prompt test_input_required_result_prompt from its user's answer.
func askContext(ctx context.Context) (string, error) {
	a, err := mcp.Ask(ctx, map[string]mcp.Input{"user_context": form("What context should the prompt use?", "context", "string")})
	if err != nil {
		return "", err
	}
	return "Use this context: " + field(a["user_context"], "context"), nil
}
