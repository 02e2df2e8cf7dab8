package apierr

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
)

// Error is a structured error message: a code and the extra attributes that detail it.
// The zero value is not useful; build one with New. An *Error is immutable once returned by
// With, so it is safe to share between goroutines.
type Error struct {
	// Code is the error code sent to the client.
	Code Code
	// Attrs holds the extra attributes sent with the code, such as "name" or "path".
	Attrs     map[string]any
	status    int
	cause     error
	malformed []any // pairs New could not read, for the log
}

// New returns an error with code c. Attributes are given as name, value pairs:
//
//	apierr.New(apierr.NotFound, "name", "dashboard-7")
//
// A malformed pair (a name that is not a string, or a trailing name without a value) is not
// sent to the client, which gets the well-formed attributes, but neither is it dropped
// silently: Error, which the server's log shows, names it (" malformed attributes: [...]"),
// and Malformed reports it, for tests. New never panics: it is called on error paths.
func New(c Code, attrs ...any) *Error {
	e := &Error{Code: c}
	for i := 0; i < len(attrs); i += 2 {
		name, ok := attrs[i].(string)
		if !ok || i+1 == len(attrs) {
			e.malformed = append(e.malformed, attrs[i:min(i+2, len(attrs))]...)
			continue
		}
		e.set(name, attrs[i+1])
	}
	return e
}

// Malformed returns the name/value arguments New could not read as pairs; none for a
// well-formed call.
func (e *Error) Malformed() []any { return e.malformed }

// CodeOf returns the code of err as From reads it: the code of the *Error err is or wraps,
// CANCELLED or TIMEOUT for a context's end, INTERNAL-ERROR for any other error; "" for nil.
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	return From(err).Code
}

// With returns a copy of e with the attribute name set to v.
func (e *Error) With(name string, v any) *Error {
	c := e.clone()
	c.set(name, v)
	return c
}

// WithStatus returns a copy of e answered with HTTP status code s instead of its code's.
func (e *Error) WithStatus(s int) *Error {
	c := e.clone()
	c.status = s
	return c
}

// Wrap returns a copy of e that records cause for the server's log. The cause never reaches
// the client.
func (e *Error) Wrap(cause error) *Error {
	c := e.clone()
	c.cause = cause
	return c
}

func (e *Error) clone() *Error {
	c := *e
	if e.Attrs != nil {
		c.Attrs = make(map[string]any, len(e.Attrs))
		for k, v := range e.Attrs {
			c.Attrs[k] = v
		}
	}
	return &c
}

func (e *Error) set(name string, v any) {
	switch name {
	case "type", "error", "id":
		return // reserved by the message itself
	}
	if e.Attrs == nil {
		e.Attrs = make(map[string]any, 2)
	}
	e.Attrs[name] = v
}

// Status returns the HTTP status that accompanies e.
func (e *Error) Status() int {
	if e.status != 0 {
		return e.status
	}
	return e.Code.Status()
}

// Error returns the code and the attributes, for logs and tests.
func (e *Error) Error() string {
	if len(e.Attrs) == 0 && e.cause == nil && e.malformed == nil {
		return string(e.Code)
	}
	var b bytes.Buffer
	b.WriteString(string(e.Code))
	for _, k := range e.attrNames() {
		fmt.Fprintf(&b, " %s=%v", k, e.Attrs[k])
	}
	if e.malformed != nil {
		fmt.Fprintf(&b, " malformed attributes: %v", e.malformed)
	}
	if e.cause != nil {
		fmt.Fprintf(&b, ": %v", e.cause)
	}
	return b.String()
}

// Unwrap returns the cause recorded by Wrap, if any.
func (e *Error) Unwrap() error { return e.cause }

// Is reports whether target is an *Error with the same code, so that
// errors.Is(err, apierr.New(apierr.NotFound)) matches any NOT-FOUND error.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

func (e *Error) attrNames() []string {
	names := make([]string, 0, len(e.Attrs))
	for k := range e.Attrs {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// MarshalJSON encodes e as an error message: {"type": "error", "error": code, attributes...},
// attributes in name order.
func (e *Error) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":"error","error":`)
	code, _ := json.Marshal(string(e.Code))
	b.Write(code)
	for _, k := range e.attrNames() {
		name, _ := json.Marshal(k)
		v, err := json.Marshal(e.Attrs[k])
		if err != nil {
			return nil, fmt.Errorf("apierr: attribute %q: %w", k, err)
		}
		b.WriteByte(',')
		b.Write(name)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON decodes an error message, keeping every attribute but type and error (and the
// WebSocket id).
func (e *Error) UnmarshalJSON(data []byte) error {
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	code, _ := m["error"].(string)
	if code == "" {
		return errors.New("apierr: message has no error code")
	}
	*e = *New(Code(code))
	for k, v := range m {
		e.set(k, v)
	}
	return nil
}

// From returns err as an *Error: itself when it is one (or wraps one), CANCELLED for a
// cancelled context, TIMEOUT for a deadline, and INTERNAL-ERROR wrapping err otherwise.
// From(nil) is nil.
func From(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	switch {
	case errors.Is(err, context.Canceled):
		return &Error{Code: Cancelled, cause: err}
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Code: Timeout, cause: err}
	}
	return &Error{Code: Internal, cause: err}
}
