package mcp

import (
	"context"
	"encoding/json"

	"github.com/fnapi/fnapi/internal/schemalink"
	"github.com/fnapi/fnapi/jsonrpc"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/transport"
)

// listPrompts answers prompts/list: the prompts whose function the caller may call, with the
// function's arguments.
func (s *Server) listPrompts(x *transport.Exchange) any {
	list := []map[string]any{}
	for _, p := range s.opts.Prompts {
		args := []map[string]any{}
		f := x.Lookup(p.Function)
		switch {
		case p.Function == "":
			f = &registry.Func{}
		case f == nil:
			continue
		}
		schemas := schemalink.Of(f).Params
		for i, a := range f.Params {
			m := map[string]any{"name": a.Name, "required": a.Required}
			if s := schemas[i]; s != nil && s.Description != "" {
				m["description"] = s.Description
			}
			args = append(args, m)
		}
		m := map[string]any{"name": p.Name, "arguments": args}
		if p.Title != "" {
			m["title"] = p.Title
		}
		if d := or(p.Description, f.Description); d != "" {
			m["description"] = d
		}
		list = append(list, m)
	}
	return map[string]any{"prompts": list}
}

// getPrompt answers prompts/get: the prompt's function called with the prompt's arguments.
func (s *Server) getPrompt(ctx context.Context, x *transport.Exchange, a *answer, params json.RawMessage) (any, *jsonrpc.Error) {
	var p struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	if json.Unmarshal(params, &p) != nil || p.Name == "" {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "prompts/get needs params.name, and string arguments")
	}
	var pr *Prompt
	for i := range s.opts.Prompts {
		if s.opts.Prompts[i].Name == p.Name {
			pr = &s.opts.Prompts[i]
		}
	}
	if pr == nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "unknown prompt: "+p.Name)
	}
	if pr.Function == "" {
		return map[string]any{"description": pr.Description,
			"messages": []Message{{Role: "user", Content: Content{Type: "text", Text: pr.Text}}}}, nil
	}
	args := make(map[string]json.RawMessage, len(p.Arguments))
	for k, v := range p.Arguments {
		args[k], _ = json.Marshal(v)
	}
	v, jerr := s.run(ctx, x, a, pr.Function, args)
	if jerr != nil {
		return nil, jerr
	}
	res := map[string]any{}
	if pr.Description != "" {
		res["description"] = pr.Description
	}
	switch t := v.(type) {
	case string:
		res["messages"] = []Message{{Role: "user", Content: Content{Type: "text", Text: t}}}
	default:
		b, err := jsonrpc.Marshal(v)
		if err != nil || len(b) == 0 || b[0] != '[' {
			return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "the prompt's function returned no messages")
		}
		res["messages"] = json.RawMessage(b)
	}
	return res, nil
}
