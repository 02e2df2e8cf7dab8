package transport

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/registry"
)

// Names of the special arguments that carry tokens.
const (
	argSession = "_session"
	argKey     = "_key"
)

// credentials moves the tokens out of the arguments and the request into c. Two different
// tokens of one kind (two session cookies, two key headers, a cookie and a _session argument,
// a header and a _key argument) are refused with INVALID-ARGUMENT naming the second, rather
// than one being chosen silently; the same token given twice is accepted.
func (h *Handler) credentials(r *http.Request, c *registry.Call, args map[string]json.RawMessage) error {
	cr := &c.Credentials
	if len(r.Header["Cookie"]) > 0 {
		for _, ck := range r.CookiesNamed(h.cfg.Names.SessionCookie) {
			if ck.Value == "" {
				continue
			}
			if cr.Session != "" && cr.Session != ck.Value {
				return conflicting(h.cfg.Names.SessionCookie, "two session cookies")
			}
			cr.Session, cr.SessionFromCookie = ck.Value, true
		}
	}
	for _, v := range r.Header[h.cfg.Names.KeyHeader] {
		k := strings.TrimSpace(strings.TrimPrefix(v, "Bearer "))
		if cr.Key != "" && cr.Key != k {
			return conflicting(h.cfg.Names.KeyHeader, "two API key headers")
		}
		cr.Key = k
	}
	if err := takeTokens(args, cr); err != nil {
		return err
	}
	cr.CrossSite, cr.SameOrigin = h.site(r)
	return nil
}

// takeTokens moves the _session and _key arguments into cr, refusing one that differs from a
// token of the same kind cr holds already.
func takeTokens(args map[string]json.RawMessage, cr *registry.Credentials) error {
	if s, ok := takeToken(args, argSession); ok {
		if cr.Session != "" && cr.Session != s {
			return conflicting(argSession, "a session ID besides another one (the session cookie)")
		}
		cr.Session, cr.SessionFromCookie = s, false
	}
	if k, ok := takeToken(args, argKey); ok {
		if cr.Key != "" && cr.Key != k {
			return conflicting(argKey, "an API key besides another one (the key header)")
		}
		cr.Key = k
	}
	return nil
}

func conflicting(name, what string) error {
	return apierr.New(apierr.InvalidArgument, "name", name, "reason", "conflicting credentials: "+what)
}

// takeToken removes the argument name from args and returns its value as a string: the JSON
// string's content, or the raw text.
func takeToken(args map[string]json.RawMessage, name string) (string, bool) {
	raw, ok := args[name]
	if !ok {
		return "", false
	}
	delete(args, name)
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	return string(raw), true
}

// site reports what the browser said of where the request comes from: cross-site (another
// site, or an Origin that is neither the server's own nor allowed), and same-origin (the
// server's own origin, scheme included, or an allowed one: Sec-Fetch-Site: same-origin, or
// without Sec-Fetch-Site such an Origin). A request that says neither Sec-Fetch-Site nor
// Origin comes from no browser (every current browser sends one of them on the requests that
// other pages make), so it cannot be a forgery: it counts as same-origin, as Go's
// http.CrossOriginProtection decides. Any other (Sec-Fetch-Site: same-site or none) is
// neither.
func (h *Handler) site(r *http.Request) (cross, same bool) {
	fetch, origin := first(r.Header["Sec-Fetch-Site"]), first(r.Header["Origin"]) // as Header.Get, the keys canonical
	if origin != "" && h.listedOrigin(origin) {
		return false, true
	}
	cross = fetch == "cross-site" || origin != "" && !h.originAllowed(origin, r)
	switch {
	case cross:
		return true, false
	case fetch == "same-origin":
		return false, true
	case fetch == "":
		return false, true // no browser, or the server's own Origin (else cross above)
	}
	return false, false
}

// isOwnOrigin reports whether origin is the server's own as a browser names it,
// scheme://host[:port]. Over TLS the scheme must be https: a page of http://host is another
// origin, and a forgery from it takes only a network attacker. Without TLS (a proxy in front
// ends it, or plain HTTP) the scheme is unknown and either is taken, as Go's
// http.CrossOriginProtection does; HSTS keeps browsers off http://host.
func isOwnOrigin(origin string, r *http.Request) bool {
	if strings.EqualFold(origin, "https://"+r.Host) {
		return true
	}
	return r.TLS == nil && strings.EqualFold(origin, "http://"+r.Host)
}

// originAllowed reports whether origin is the server's own (see isOwnOrigin) or allowed by
// config.
func (h *Handler) originAllowed(origin string, r *http.Request) bool {
	return isOwnOrigin(origin, r) || h.listedOrigin(origin)
}

// listedOrigin reports whether origin is one of Config.AllowedOrigins.
func (h *Handler) listedOrigin(origin string) bool {
	for _, o := range h.cfg.AllowedOrigins {
		if strings.EqualFold(strings.TrimSuffix(o, "/"), origin) {
			return true
		}
	}
	return false
}

// first returns a header's first value, or "".
func first(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}
