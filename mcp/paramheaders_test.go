package mcp_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/mcp"
	"github.com/fnapi/fnapi/registry"
)

// TestParamHeaders: an argument tagged x-mcp-header is checked against its Mcp-Param header
// on a stateless tools/call (literal or Base64), and a hand-written input schema is shown as
// written.
func TestParamHeaders(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	reg.MustRegister("route", func(in struct {
		Region string `json:"region" jsonschema_extras:"x-mcp-header=Region"`
		N      int    `json:"n,omitempty" jsonschema_extras:"x-mcp-header=N"`
	}) string {
		return in.Region
	}, registry.Requires(decl.Public))
	reg.MustRegister("contact", func(in struct {
		Phone string `json:"phone,omitempty"`
		Email string `json:"email,omitempty"`
	}) string {
		return in.Phone + in.Email
	}, registry.Requires(decl.Public))
	schema := `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"phone":{"type":"string"},"email":{"type":"string"}},"anyOf":[{"required":["phone"]},{"required":["email"]}],"additionalProperties":false}`
	h, err := fnapi.New(reg, fnapi.WithMCP(mcp.Options{InputSchemas: map[string]json.RawMessage{"contact": json.RawMessage(schema)}}))
	if err != nil {
		t.Fatal(err)
	}
	s := serve(t, h)
	call := func(args string, headers ...string) (int, int) {
		t.Helper()
		a := s.stateless("", "tools/call", "route", `"name":"route","arguments":`+args+`,`+meta, headers...)
		return a.status, a.errCode()
	}
	b64 := func(s string) string { return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?=" }
	for _, c := range []struct {
		args    string
		headers []string
		ok      bool
	}{
		{`{"region":"eu-west"}`, []string{"Mcp-Param-Region", "eu-west"}, true},
		{`{"region":"eu-west"}`, []string{"mcp-param-region", " eu-west "}, true},
		{`{"region":"Zürich\n"}`, []string{"Mcp-Param-Region", b64("Zürich\n")}, true},
		{`{"region":"eu","n":3}`, []string{"Mcp-Param-Region", "eu", "Mcp-Param-N", "3"}, true},
		{`{"region":"=?base64?eu"}`, []string{"Mcp-Param-Region", "=?base64?eu"}, true},   // no suffix: a literal
		{`{"region":"eu-west"}`, nil, false},                                              // header missing
		{`{"region":"eu-west"}`, []string{"Mcp-Param-Region", "us-east"}, false},          // mismatch
		{`{"region":"Hello"}`, []string{"Mcp-Param-Region", "=?base64?SGVsbG8?="}, false}, // bad padding
		{`{"region":"Hello"}`, []string{"Mcp-Param-Region", "=?base64?SGVs!!bG8=?="}, false},
		{`{}`, []string{"Mcp-Param-Region", "eu"}, false}, // header without the argument
	} {
		status, code := call(c.args, c.headers...)
		if c.ok && (status != 200 || code != 0) || !c.ok && (status != 400 || code != mcp.CodeHeaderMismatch) {
			t.Errorf("arguments %s, headers %q: %d, error %d; want ok %t", c.args, c.headers, status, code, c.ok)
		}
	}
	a := s.stateless("", "tools/list", "", meta)
	if !strings.Contains(a.body, `"inputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","additionalProperties":false,"anyOf":[{"required":["phone"]},{"required":["email"]}],`) ||
		!strings.Contains(a.body, `"x-mcp-header":"Region"`) {
		t.Errorf("tools/list does not show the hand-written schema and the header: %s", a.body)
	}
}
