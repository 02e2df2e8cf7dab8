package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/version"
)

// Names of the special arguments that carry tokens.
const (
	argSession = "_session"
	argKey     = "_key"
)

// newCall reads a request's arguments and tokens into a Call.
func (h *Handler) newCall(w http.ResponseWriter, r *http.Request, f *registry.Func, v version.Version) (*registry.Call, error) {
	c := &registry.Call{
		Func:       f,
		Version:    v,
		Transport:  "http",
		RemoteAddr: r.RemoteAddr,
		Header:     r.Header,
		SetCookie:  func(ck *http.Cookie) { http.SetCookie(w, ck) },
	}
	args := make(map[string]json.RawMessage)
	a := argReader{h: h, args: args}
	if r.URL.RawQuery != "" {
		if err := a.query(r.URL.RawQuery, "the query string"); err != nil {
			return nil, err
		}
	}
	if r.Method == http.MethodPost {
		if err := a.body(w, r); err != nil {
			return nil, err
		}
	}
	h.credentials(r, c, args)
	c.Args = args
	return c, nil
}

type argReader struct {
	h    *Handler
	args map[string]json.RawMessage
}

// add adds one argument, refusing duplicates and too many arguments.
func (a argReader) add(name string, v json.RawMessage) error {
	if _, dup := a.args[name]; dup {
		return apierr.New(apierr.InvalidArgument, "name", name, "reason", "given more than once")
	}
	if len(a.args) >= a.h.cfg.MaxArgs {
		return apierr.New(apierr.RequestTooLarge, "limit", a.h.cfg.MaxArgs, "unit", "arguments")
	}
	a.args[name] = v
	return nil
}

// text adds an argument given as text: JSON, or else a plain string.
func (a argReader) text(name, s string) error {
	if json.Valid([]byte(s)) {
		return a.add(name, json.RawMessage(s))
	}
	if a.h.cfg.StrictJSON && name != argSession && name != argKey {
		return apierr.New(apierr.InvalidJSON, "name", name)
	}
	b, _ := json.Marshal(s) // a string always encodes
	return a.add(name, b)
}

// query adds the arguments of URL-encoded text (a query string or a form body), name=value
// pairs joined by '&'. It reads them straight into the arguments, without the url.Values map.
func (a argReader) query(q, what string) error {
	for q != "" {
		var pair string
		pair, q, _ = strings.Cut(q, "&")
		if pair == "" {
			continue
		}
		name, value, _ := strings.Cut(pair, "=")
		name, err1 := url.QueryUnescape(name)
		value, err2 := url.QueryUnescape(value)
		if err1 != nil || err2 != nil || strings.Contains(pair, ";") {
			return apierr.New(apierr.InvalidArgument, "reason", what+" is not valid URL encoding")
		}
		if err := a.text(name, value); err != nil {
			return err
		}
	}
	return nil
}

func (a argReader) tooLarge() error {
	return apierr.New(apierr.RequestTooLarge, "limit", a.h.cfg.MaxBodyBytes)
}

// body reads the arguments of a POST body, by its Content-Type.
func (a argReader) body(w http.ResponseWriter, r *http.Request) error {
	if r.ContentLength > a.h.cfg.MaxBodyBytes {
		return a.tooLarge()
	}
	body := http.MaxBytesReader(w, r.Body, a.h.cfg.MaxBodyBytes)
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return a.empty(body, ct)
	}
	if ct == "application/json" { // the common case, without parsing the media type
		return a.json(body)
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return unsupported(ct)
	}
	switch {
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return a.json(body)
	case mt == "application/x-www-form-urlencoded":
		b, err := a.readAll(body)
		if err != nil {
			return err
		}
		return a.query(string(b), "the form body")
	case mt == "multipart/form-data":
		if params["boundary"] == "" {
			return apierr.New(apierr.InvalidArgument, "reason", "multipart body without a boundary")
		}
		return a.multipart(multipart.NewReader(body, params["boundary"]))
	}
	return a.empty(body, ct)
}

// empty accepts a body of any other type only when it is empty.
func (a argReader) empty(body io.Reader, ct string) error {
	n, err := body.Read(make([]byte, 1))
	if n == 0 && (err == io.EOF || err == nil) {
		return nil
	}
	return unsupported(ct)
}

func unsupported(ct string) error {
	return apierr.New(apierr.UnsupportedMediaType, "type", ct, "supported",
		[]string{"application/json", "application/x-www-form-urlencoded", "multipart/form-data"})
}

func (a argReader) readAll(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(r)
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return nil, a.tooLarge()
	}
	if err != nil {
		return nil, apierr.New(apierr.InvalidArgument, "reason", "the body could not be read")
	}
	return b, nil
}

func (a argReader) json(body io.Reader) error {
	buf := getBuf() // json.Unmarshal copies what it keeps: the buffer can be reused
	defer putBuf(buf)
	if _, err := buf.ReadFrom(body); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return a.tooLarge()
		}
		return apierr.New(apierr.InvalidArgument, "reason", "the body could not be read")
	}
	b := bytes.TrimLeft(buf.Bytes(), " \t\r\n")
	if len(b) == 0 || b[0] != '{' {
		return notObject()
	}
	if len(a.args) == 0 {
		// No argument from the query string: the body's go straight into the call's map.
		if err := json.Unmarshal(b, &a.args); err != nil {
			return notObject()
		}
		if len(a.args) > a.h.cfg.MaxArgs {
			return apierr.New(apierr.RequestTooLarge, "limit", a.h.cfg.MaxArgs, "unit", "arguments")
		}
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return notObject()
	}
	for name, v := range obj {
		if err := a.add(name, v); err != nil {
			return err
		}
	}
	return nil
}

func notObject() error {
	return apierr.New(apierr.InvalidJSON, "reason", "the body must be a JSON object of arguments")
}

func (a argReader) multipart(mr *multipart.Reader) error {
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return a.tooLarge()
			}
			return apierr.New(apierr.InvalidArgument, "reason", "the multipart body is malformed")
		}
		name := p.FormName()
		if name == "" {
			return apierr.New(apierr.InvalidArgument, "reason", "a multipart part has no form name")
		}
		b, err := a.readAll(p)
		if err != nil {
			return err
		}
		if err := a.text(name, string(b)); err != nil {
			return err
		}
	}
}

// credentials moves the tokens out of the arguments and the request into c.
func (h *Handler) credentials(r *http.Request, c *registry.Call, args map[string]json.RawMessage) {
	if ck, err := r.Cookie(h.cfg.SessionCookie); err == nil && ck.Value != "" {
		c.Credentials.Session, c.Credentials.SessionFromCookie = ck.Value, true
	}
	if k := r.Header.Get(h.cfg.KeyHeader); k != "" {
		c.Credentials.Key = strings.TrimSpace(strings.TrimPrefix(k, "Bearer "))
	}
	if s, ok := TakeToken(args, argSession); ok {
		c.Credentials.Session, c.Credentials.SessionFromCookie = s, false
	}
	if k, ok := TakeToken(args, argKey); ok {
		c.Credentials.Key = k
	}
	c.Credentials.CrossSite = h.crossSite(r)
}

// TakeToken removes the argument name from args and returns its value as a string: the JSON
// string's content, or the raw text. Transports use it for _session and _key.
func TakeToken(args map[string]json.RawMessage, name string) (string, bool) {
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

// crossSite reports whether a browser marked the request as coming from another site.
func (h *Handler) crossSite(r *http.Request) bool {
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return true
	}
	origin := r.Header.Get("Origin")
	return origin != "" && !h.originAllowed(origin, r.Host)
}

// originAllowed reports whether origin is the server's own (same host) or allowed by config.
func (h *Handler) originAllowed(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if strings.EqualFold(u.Host, host) {
		return true
	}
	for _, o := range h.cfg.AllowedOrigins {
		if strings.EqualFold(strings.TrimSuffix(o, "/"), origin) {
			return true
		}
	}
	return false
}
