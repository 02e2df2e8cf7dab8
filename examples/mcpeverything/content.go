package main

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"

	"github.com/fnapi/fnapi/mcp"
	"github.com/fnapi/fnapi/registry"
)

// pngBytes is a 1x1 red PNG; wavBytes a tenth of a second of silence (8 kHz, 8 bit, mono).
var (
	pngBytes  = onePixel()
	pngBase64 = base64.StdEncoding.EncodeToString(pngBytes)
	wavBase64 = base64.StdEncoding.EncodeToString(silence())
)

func onePixel() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	_ = png.Encode(&b, img) // writing to memory does not fail
	return b.Bytes()
}

func silence() []byte {
	const rate, n = 8000, 800
	var b bytes.Buffer
	le := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	le(uint32(36 + n))
	b.WriteString("WAVEfmt ")
	le(uint32(16))
	le(uint16(1)) // PCM
	le(uint16(1)) // mono
	le(uint32(rate))
	le(uint32(rate)) // bytes a second
	le(uint16(1))    // block align
	le(uint16(8))    // bits a sample
	b.WriteString("data")
	le(uint32(n))
	b.Write(bytes.Repeat([]byte{128}, n))
	return b.Bytes()
}

// resources are published with the functions registerResources registers.
var resources = []mcp.Resource{
	{URI: "test://static-text", Name: "static-text", Description: "A static text.", MIMEType: "text/plain", Function: "static-text"},
	{URI: "test://static-binary", Name: "static-binary", Description: "A static image.", MIMEType: "image/png", Function: "static-binary"},
	{URI: "test://watched-resource", Name: "watched-resource", Description: "A resource to subscribe to.", MIMEType: "text/plain", Function: "static-text"},
	{URITemplate: "test://template/{id}/data", Name: "template", Description: "Data of one id.", MIMEType: "application/json", Function: "template-data"},
}

func registerResources(reg *registry.Registry, opts ...registry.Option) error {
	if err := reg.Register("static-text", func() string { return "This is the content of the static text resource." }, append(opts, registry.Describe("The text of the resource test://static-text."))...); err != nil {
		return err
	}
	if err := reg.Register("static-binary", func() []byte { return pngBytes }, append(opts, registry.Describe("The image of the resource test://static-binary."))...); err != nil {
		return err
	}
	return reg.Register("template-data", func(in struct {
		ID string `json:"id" jsonschema:"description=The id in the URI"`
	}) map[string]any {
		return map[string]any{"id": in.ID, "templateTest": true, "data": "Data for ID: " + in.ID}
	}, append(opts, registry.Describe("The data of the resource test://template/{id}/data."))...)
}

// prompts are offered with the functions registerPrompts registers.
var prompts = []mcp.Prompt{
	{Name: "test_simple_prompt", Description: "A prompt without arguments.", Function: "simple-prompt"},
	{Name: "test_prompt_with_arguments", Description: "A prompt with two arguments.", Function: "prompt-with-arguments"},
	{Name: "test_prompt_with_embedded_resource", Description: "A prompt that embeds a resource.", Function: "prompt-with-resource"},
	{Name: "test_prompt_with_image", Description: "A prompt with an image.", Function: "prompt-with-image"},
	{Name: "test_input_required_result_prompt", Description: "A prompt that asks its user for context.", Function: "input-required-prompt"},
}

func registerPrompts(reg *registry.Registry, opts ...registry.Option) error {
	if err := reg.Register("simple-prompt", func() string { return "This is a simple prompt for testing." }, append(opts, registry.Describe("The prompt test_simple_prompt."))...); err != nil {
		return err
	}
	if err := reg.Register("prompt-with-arguments", func(in struct {
		Arg1 string `json:"arg1" jsonschema:"description=First test argument"`
		Arg2 string `json:"arg2" jsonschema:"description=Second test argument"`
	}) string {
		return "Prompt with arguments: arg1='" + in.Arg1 + "', arg2='" + in.Arg2 + "'"
	}, append(opts, registry.Describe("The prompt test_prompt_with_arguments."))...); err != nil {
		return err
	}
	if err := reg.Register("prompt-with-resource", func(in struct {
		ResourceURI string `json:"resourceUri" jsonschema:"description=URI of the resource to embed"`
	}) []mcp.Message {
		return []mcp.Message{
			{Role: "user", Content: mcp.Content{Type: "resource", Resource: &mcp.ResourceContents{
				URI: in.ResourceURI, MIMEType: "text/plain", Text: "Embedded resource content for testing."}}},
			{Role: "user", Content: mcp.Content{Type: "text", Text: "Please process the embedded resource above."}},
		}
	}, append(opts, registry.Describe("The prompt test_prompt_with_embedded_resource."))...); err != nil {
		return err
	}
	return reg.Register("prompt-with-image", func() []mcp.Message {
		return []mcp.Message{
			{Role: "user", Content: mcp.Content{Type: "image", Data: pngBase64, MIMEType: "image/png"}},
			{Role: "user", Content: mcp.Content{Type: "text", Text: "Please analyze the image above."}},
		}
	}, append(opts, registry.Describe("The prompt test_prompt_with_image."))...)
}
