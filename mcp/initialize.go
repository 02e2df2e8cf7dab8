package mcp

import (
	"encoding/json"
	"net/http"
	"slices"

	"github.com/fnapi/fnapi/jsonrpc"
	"github.com/fnapi/fnapi/transport"
)

// The 2025-11-25 handshake (initialize, notifications) and what the server says of itself.

// initialize starts a session and answers the server's capabilities.
func (s *Server) initialize(w http.ResponseWriter, x *transport.Exchange, req *jsonrpc.Request, caller string) {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(req.Params, &p); err != nil || p.ProtocolVersion == "" {
		httpError(w, http.StatusBadRequest, withID(req, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "initialize needs params.protocolVersion")))
		return
	}
	version := LatestProtocol
	if slices.Contains(protocols, p.ProtocolVersion) {
		version = p.ProtocolVersion
	}
	sess, err := s.sessions.start(x.TokenDigest(), caller, version)
	if err != nil {
		status := http.StatusServiceUnavailable
		if err == errCallerFull {
			status = http.StatusTooManyRequests
		}
		httpError(w, status, withID(req, jsonrpc.NewError(jsonrpc.CodeServerError, err.Error())))
		return
	}
	res := map[string]any{
		"protocolVersion": version,
		"capabilities":    s.capabilities(false),
		"serverInfo":      s.serverInfo(x),
	}
	if s.opts.Instructions != "" {
		res["instructions"] = s.opts.Instructions
	}
	b, _ := jsonrpc.Marshal(res)
	w.Header().Set(headerSession, sess.id)
	jsonrpc.Write(w, jsonrpc.Response{JSONRPC: jsonrpc.Version, ID: req.ID, Result: b})
}

// capabilities are the server's: of a stateless revision, without logging/setLevel and
// resources/subscribe.
func (s *Server) capabilities(stateless bool) map[string]any {
	caps := map[string]any{"tools": map[string]any{}, "completions": map[string]any{}}
	if !stateless {
		caps["logging"] = map[string]any{}
	} else {
		caps["extensions"] = map[string]any{TasksExtension: map[string]any{}}
	}
	if len(s.opts.Resources) > 0 {
		caps["resources"] = map[string]any{"subscribe": !stateless}
	}
	if len(s.opts.Prompts) > 0 {
		caps["prompts"] = map[string]any{}
	}
	return caps
}

func (s *Server) serverInfo(x *transport.Exchange) map[string]any {
	name, ver := s.opts.Name, s.opts.Version
	if ver == "" {
		ver = x.Version.String()
	}
	return map[string]any{"name": name, "version": ver}
}

// notification handles a notification of the client.
func (s *Server) notification(sess *session, req *jsonrpc.Request) {
	if req.Method != "notifications/cancelled" {
		return // notifications/initialized, and those this server does not act on
	}
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(req.Params, &p) == nil && p.RequestID != nil {
		sess.cancel(string(p.RequestID))
	}
}
