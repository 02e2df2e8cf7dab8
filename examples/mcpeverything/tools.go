package main

import (
	"context"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/mcp"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/stream"
)

// errTest is the error test_error_handling answers, declared as an application declares its own.
var errTest = apierr.Declare("TEST-ERROR", 400, "The tool failed on purpose.", apierr.Attr("reason", "why").Typed("string"))

// register registers every function: the tools, and the functions behind the resources and
// prompts. Every one is public: the example has no authentication.
func register(reg *registry.Registry) error {
	public := registry.Requires(decl.Public)
	for _, f := range []struct {
		name, desc string
		fn         any
	}{
		{"test_simple_text", "Returns a simple text.", func() []mcp.Content {
			return []mcp.Content{{Type: "text", Text: "This is a simple text response for testing."}}
		}},
		{"test_image_content", "Returns an image.", func() []mcp.Content {
			return []mcp.Content{{Type: "image", Data: pngBase64, MIMEType: "image/png"}}
		}},
		{"test_audio_content", "Returns a sound.", func() []mcp.Content {
			return []mcp.Content{{Type: "audio", Data: wavBase64, MIMEType: "audio/wav"}}
		}},
		{"test_embedded_resource", "Returns an embedded resource.", func() []mcp.Content {
			return []mcp.Content{{Type: "resource", Resource: &mcp.ResourceContents{
				URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content."}}}
		}},
		{"test_multiple_content_types", "Returns text, an image and a resource.", func() []mcp.Content {
			return []mcp.Content{
				{Type: "text", Text: "Multiple content types test:"},
				{Type: "image", Data: pngBase64, MIMEType: "image/png"},
				{Type: "resource", Resource: &mcp.ResourceContents{
					URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`}},
			}
		}},
		{"test_tool_with_logging", "Sends three log messages while it runs.", withLogging},
		{"test_logging_tool", "Sends three log messages while it runs.", withLogging},
		{"test_tool_with_progress", "Reports its progress: 0, 50 and 100 of 100.", withProgress},
		{"test_error_handling", "Always fails.", func() error {
			return apierr.New(errTest, "reason", "This tool intentionally returns an error for testing")
		}},
	} {
		if err := reg.Register(f.name, f.fn, public, registry.Describe(f.desc), registry.Errors(errTest)); err != nil {
			return err
		}
	}
	if err := reg.Register("count", count, public, registry.ReadOnly(),
		registry.Describe("Counts from 1 to n, one chunk every interval_ms milliseconds: each chunk is a progress notification when the client asks for progress.")); err != nil {
		return err
	}
	if err := registerTasks(reg, public); err != nil {
		return err
	}
	if err := registerInputs(reg, public); err != nil {
		return err
	}
	if err := registerAsking(reg, public); err != nil {
		return err
	}
	if err := registerSchema(reg, public); err != nil {
		return err
	}
	if err := registerResources(reg, public); err != nil {
		return err
	}
	return registerPrompts(reg, public)
}

func withLogging(ctx context.Context) ([]mcp.Content, error) {
	for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		if i > 0 {
			if err := sleep(ctx, 50*time.Millisecond); err != nil {
				return nil, err
			}
		}
		mcp.Log(ctx, "info", "mcpeverything", msg)
	}
	return []mcp.Content{{Type: "text", Text: "Tool with logging executed successfully"}}, nil
}

func withProgress(ctx context.Context) ([]mcp.Content, error) {
	for i, p := range []float64{0, 50, 100} {
		if i > 0 {
			if err := sleep(ctx, 50*time.Millisecond); err != nil {
				return nil, err
			}
		}
		mcp.Progress(ctx, p, 100, "")
	}
	return []mcp.Content{{Type: "text", Text: "Tool with progress executed successfully"}}, nil
}

// tick is one chunk of count: the number, and how far the count is.
type tick struct {
	N        int     `json:"n"`
	Progress float64 `json:"progress"`
}

// count is a streaming function: an MCP client that asks for progress gets a notification per
// chunk; the tool's result is the chunks, as a non-streaming call of any fnapi function has it.
func count(ctx context.Context, in struct {
	N        int `json:"n" jsonschema:"description=How far to count,minimum=1,maximum=100000"`
	Interval int `json:"interval_ms,omitempty" jsonschema:"description=Milliseconds between two numbers,maximum=10000"`
}, s *stream.Sender[tick]) error {
	for i := 1; i <= in.N; i++ {
		if err := s.Send(tick{N: i, Progress: float64(i) / float64(in.N)}); err != nil {
			return err
		}
		if err := sleep(ctx, time.Duration(in.Interval)*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
