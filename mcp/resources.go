package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/jsonrpc"
	"github.com/fnapi/fnapi/transport"
)

// CodeResourceNotFound is the JSON-RPC error of resources/read for a URI no resource has.
const CodeResourceNotFound = -32002

// listResources answers resources/list, or resources/templates/list.
func (s *Server) listResources(templates bool) any {
	list := []map[string]any{}
	for _, r := range s.opts.Resources {
		if (r.URITemplate != "") != templates {
			continue
		}
		m := map[string]any{"name": r.Name}
		if templates {
			m["uriTemplate"] = r.URITemplate
		} else {
			m["uri"] = r.URI
		}
		for k, v := range map[string]string{"title": r.Title, "description": r.Description, "mimeType": r.MIMEType} {
			if v != "" {
				m[k] = v
			}
		}
		list = append(list, m)
	}
	if templates {
		return map[string]any{"resourceTemplates": list}
	}
	return map[string]any{"resources": list}
}

// readResource answers resources/read: the result of the resource's function.
func (s *Server) readResource(ctx context.Context, x *transport.Exchange, a *answer, params json.RawMessage) (any, *jsonrpc.Error) {
	var p struct {
		URI string `json:"uri"`
	}
	if json.Unmarshal(params, &p) != nil || p.URI == "" {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "resources/read needs params.uri")
	}
	r, vars := s.resource(p.URI)
	if r == nil {
		e := jsonrpc.NewError(CodeResourceNotFound, "resource not found")
		e.Data = map[string]string{"uri": p.URI}
		return nil, e
	}
	if r.Function == "" {
		return map[string]any{"contents": contentsOf(p.URI, r.MIMEType, r.Text)}, nil
	}
	args := map[string]json.RawMessage{}
	for k, v := range r.Args {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "internal error")
		}
		args[k] = b
	}
	for k, v := range vars {
		args[k], _ = json.Marshal(v)
	}
	v, jerr := s.run(ctx, x, a, r.Function, args)
	if jerr != nil {
		return nil, jerr
	}
	return map[string]any{"contents": contentsOf(p.URI, r.MIMEType, v)}, nil
}

// contentsOf turns a function's result into a resource's contents.
func contentsOf(uri, mime string, v any) []ResourceContents {
	switch t := v.(type) {
	case []ResourceContents:
		return t
	case ResourceContents:
		return []ResourceContents{t}
	case string:
		return []ResourceContents{{URI: uri, MIMEType: or(mime, "text/plain"), Text: t}}
	case []byte:
		return []ResourceContents{{URI: uri, MIMEType: or(mime, "application/octet-stream"), Blob: base64.StdEncoding.EncodeToString(t)}}
	}
	b, _ := jsonrpc.Marshal(v)
	return []ResourceContents{{URI: uri, MIMEType: or(mime, "application/json"), Text: string(b)}}
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// resource finds the resource of uri: by its URI, else by a template, with the template's
// variables.
func (s *Server) resource(uri string) (*Resource, map[string]string) {
	for i := range s.opts.Resources {
		if r := &s.opts.Resources[i]; r.URI == uri {
			return r, nil
		}
	}
	for i := range s.opts.Resources {
		if r := &s.opts.Resources[i]; r.URITemplate != "" {
			if vars, ok := match(r.URITemplate, uri); ok {
				return r, vars
			}
		}
	}
	return nil, nil
}

// match matches uri against a template of {name} variables, each standing for a non-empty
// text without '/', up to the literal text that follows it in the template.
func match(tmpl, uri string) (map[string]string, bool) {
	vars := map[string]string{}
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			return vars, tmpl == uri
		}
		if !strings.HasPrefix(uri, tmpl[:i]) {
			return nil, false
		}
		uri, tmpl = uri[i:], tmpl[i+1:]
		j := strings.IndexByte(tmpl, '}')
		if j < 0 {
			return nil, false
		}
		name := tmpl[:j]
		tmpl = tmpl[j+1:]
		lit := tmpl
		if k := strings.IndexByte(tmpl, '{'); k >= 0 {
			lit = tmpl[:k]
		}
		end := len(uri)
		if lit != "" {
			end = strings.Index(uri, lit)
		}
		if end <= 0 || strings.Contains(uri[:end], "/") {
			return nil, false
		}
		vars[name], uri = uri[:end], uri[end:]
	}
}

// run calls the function name with args for a resource or a prompt; its error is a JSON-RPC
// error.
func (s *Server) run(ctx context.Context, x *transport.Exchange, a *answer, name string, args map[string]json.RawMessage) (any, *jsonrpc.Error) {
	f := x.Lookup(name)
	if f == nil {
		return nil, jsonrpc.FromAPI(apierr.New(apierr.UnknownFunction, "path", name))
	}
	c, err := x.NewCall(f, args)
	if err != nil {
		return nil, jsonrpc.FromAPI(err)
	}
	a.called = true
	v, err := x.Call(withState(ctx, &callState{a: a}), c)
	if e := missingError(err); e != nil && a.input != nil {
		return nil, e
	}
	if err != nil {
		return nil, jsonrpc.FromAPI(err)
	}
	return v, nil
}
