package main

import (
	"context"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/mcp"
	"github.com/fnapi/fnapi/registry"
)

// taskTools are the functions a client of the tasks extension gets as tasks; requiredTasks
// run only as tasks (a stateless client without the extension is refused); askFirst ask
// their client before they become tasks (mcp.Options.AskBeforeTask).
var (
	taskTools     = []string{"slow_compute", "protocol_error_job", "confirm_delete", "multi_input"}
	requiredTasks = []string{"failing_job", "test_tool_with_task"}
	askFirst      = []string{"test_tool_with_task"}
)

// registerTasks registers the fixtures of the suite's tasks scenarios: greet answers at once,
// slow_compute, failing_job and protocol_error_job run as tasks (mcp.Options.Tasks and
// TasksRequired); protocol_error_job panics, which fails its task with a protocol error.
func registerTasks(reg *registry.Registry, opts ...registry.Option) error {
	if err := reg.Register("greet", func(in struct {
		Name string `json:"name"`
	}) []mcp.Content {
		return text("Hello, " + in.Name + "!")
	}, append(opts, registry.Describe("Greets name at once."))...); err != nil {
		return err
	}
	if err := reg.Register("slow_compute", func(ctx context.Context, in struct {
		Seconds float64 `json:"seconds"`
	}) ([]mcp.Content, error) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(in.Seconds * float64(time.Second))):
		}
		return text("Computed after the wait."), nil
	}, append(opts, registry.Describe("Waits seconds, then answers: a task."))...); err != nil {
		return err
	}
	// confirm_delete asks its user once, multi_input twice at once: as tasks they wait
	// input_required until tasks/update answers.
	if err := reg.Register("confirm_delete", func(ctx context.Context, in struct {
		Filename string `json:"filename"`
	}) ([]mcp.Content, error) {
		answers, err := mcp.Ask(ctx, map[string]mcp.Input{"confirm": {Method: "elicitation/create", Params: map[string]any{
			"message":         "Delete " + in.Filename + "?",
			"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"confirm": map[string]any{"type": "boolean"}}},
		}}})
		if err != nil {
			return nil, err
		}
		return text("Deletion of " + in.Filename + ": " + elicitation(answers["confirm"])), nil
	}, append(opts, registry.Describe("Asks its user to confirm a deletion: a task."))...); err != nil {
		return err
	}
	if err := reg.Register("multi_input", func(ctx context.Context) ([]mcp.Content, error) {
		ask := func(what string) mcp.Input {
			return mcp.Input{Method: "elicitation/create", Params: map[string]any{"message": "Your " + what + "?",
				"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{what: map[string]any{"type": "string"}}}}}
		}
		answers, err := mcp.Ask(ctx, map[string]mcp.Input{"name": ask("name"), "color": ask("color")})
		if err != nil {
			return nil, err
		}
		return text("name " + elicitation(answers["name"]) + ", color " + elicitation(answers["color"])), nil
	}, append(opts, registry.Describe("Asks its user two questions at once: a task."))...); err != nil {
		return err
	}
	// test_tool_with_task asks its user's name in an input_required round, then becomes a
	// task that answers with it.
	if err := reg.Register("test_tool_with_task", func(ctx context.Context) ([]mcp.Content, error) {
		answers, err := mcp.Ask(ctx, map[string]mcp.Input{"user_name": {Method: "elicitation/create", Params: map[string]any{
			"message":         "Your name?",
			"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
		}}})
		if err != nil {
			return nil, err
		}
		return text("Hello, " + elicitation(answers["user_name"])), nil
	}, append(opts, registry.Describe("Asks its user's name, then runs as a task."))...); err != nil {
		return err
	}
	if err := reg.Register("protocol_error_job", func() error {
		panic("protocol_error_job fails on purpose")
	}, append(opts, registry.Describe("Panics: a task that fails with a protocol error."))...); err != nil {
		return err
	}
	return reg.Register("failing_job", func(ctx context.Context) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
		return apierr.New(errTest, "reason", "the job failed on purpose")
	}, append(opts, registry.Describe("Fails after a second: a task."), registry.Errors(errTest))...)
}
