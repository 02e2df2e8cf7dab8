package transport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/fnapi/fnapi/internal/bufpool"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/internal/jsonobject"
	"github.com/fnapi/fnapi/registry"
)

// An argReader reads a call's arguments from text: the query string (query), and a body by its
// Content-Type (parse: JSON, a URL-encoded or a multipart form). It adds them to args, refusing
// duplicates and more than Config.MaxArgs.
type argReader struct {
	h     *Handler
	args  map[string]json.RawMessage
	limit int64 // of the body: the function's MaxBody
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
// pairs joined by '&'. It reads them straight into the arguments, without the [url.Values] map.
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

// parse reads the arguments of r's body, by its Content-Type. body is r's body as readBody
// bounds it (body.go).
func (a argReader) parse(r *http.Request, body io.Reader) error {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return a.empty(body, ct)
	}
	if ct == "application/json" { // the common case, without parsing the media type
		return a.json(body, r.ContentLength)
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return unsupported(ct)
	}
	switch {
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return a.json(body, r.ContentLength)
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
	return apierr.New(apierr.UnsupportedMediaType, "supported",
		[]string{"application/json", "application/x-www-form-urlencoded", "multipart/form-data"}).
		Wrap(fmt.Errorf("content type %q", ct))
}

func (a argReader) readAll(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, readError(err, a.limit)
	}
	return b, nil
}

// json reads the arguments of a JSON body of n bytes (-1 when unknown).
func (a argReader) json(body io.Reader, n int64) error {
	// A large body, read once its caller is authenticated (or for a public function that takes
	// one), goes into a buffer of its own, one allocation of its length that the arguments then
	// point into; a smaller one into a pooled buffer, which jsonobject.Read copies the arguments out of.
	own := n > registry.DefaultMaxBody && n <= a.limit
	var buf *bytes.Buffer
	if own {
		buf = bytes.NewBuffer(make([]byte, 0, n+bytes.MinRead))
	} else {
		buf = bufpool.Get()
		defer bufpool.Put(buf)
	}
	if _, err := buf.ReadFrom(body); err != nil {
		return readError(err, a.limit)
	}
	b := bytes.TrimLeft(buf.Bytes(), " \t\r\n")
	if len(b) == 0 || b[0] != '{' {
		return notObject()
	}
	if len(a.args) == 0 {
		// No argument from the query string: the body's go straight into the call's map.
		if !jsonobject.Read(b, a.args, !own) {
			return notObject()
		}
		if len(a.args) > a.h.cfg.MaxArgs {
			return apierr.New(apierr.RequestTooLarge, "limit", a.h.cfg.MaxArgs, "unit", "arguments")
		}
		return nil
	}
	obj := make(map[string]json.RawMessage)
	if !jsonobject.Read(b, obj, !own) {
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
			if cutShort(err) {
				return readError(err, a.limit)
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
