package apierr

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
)

// Error is a structured error message: a declared code and the extra attributes that detail
// it. Build one with New; the zero value is an INTERNAL-ERROR without attributes. An *Error is
// immutable: With, WithStatus and Wrap return copies, and the attributes are read through
// Attr, LookupAttr and Attrs, so it is safe to share between goroutines. (Attribute values are
// shared, not copied: treat a slice or map value as read-only.)
type Error struct {
	decl      *Declaration
	attrs     map[string]any
	status    int
	cause     error
	malformed []any // pairs New could not read, for the log
}

// New returns an error of the declared code d, answered with d's status. Attributes are given
// as name, value pairs:
//
//	apierr.New(apierr.NotFound, "name", "dashboard-7")
//
// Only the attributes d declares are sent, so that what a client receives is what doc and the
// OpenAPI document describe. A malformed pair (a name that is not a string, is one the message
// itself uses, type, error or id, or is not one d declares; a trailing name without a value) is
// not sent to the client, which gets the well-formed attributes, but neither is it dropped
// silently: Error, which the server's log shows, names it (" malformed attributes: [...]"), and
// Malformed reports it, for tests. New never panics: it is called on error paths; a nil d
// stands for Internal.
func New(d *Declaration, attrs ...any) *Error {
	if d == nil {
		d = Internal
	}
	e := &Error{decl: d}
	for i := 0; i < len(attrs); i += 2 {
		name, ok := attrs[i].(string)
		if !ok || i+1 == len(attrs) {
			e.malformed = append(e.malformed, attrs[i:min(i+2, len(attrs))]...)
			continue
		}
		e.add(name, attrs[i+1])
	}
	return e
}

// add sets the attribute name when the declaration has it, else records the pair as malformed.
func (e *Error) add(name string, v any) {
	if reserved(name) || !e.Declaration().declares(name) {
		e.malformed = append(e.malformed, name, v)
		return
	}
	e.set(name, v)
}

// Malformed returns the name/value arguments New could not read as pairs; none for a
// well-formed call.
func (e *Error) Malformed() []any { return slices.Clone(e.malformed) }

// CodeOf returns the code of err as From reads it: the code of the *Error err is or wraps,
// CANCELLED or TIMEOUT for a context's end, INTERNAL-ERROR for any other error; "" for nil.
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	return From(err).Code()
}

// Code returns the error's code.
func (e *Error) Code() Code { return e.Declaration().code }

// Declaration returns the declaration of the error's code. For an error a client decoded, it is
// the framework's declaration of a framework code, else one that knows only the code.
func (e *Error) Declaration() *Declaration {
	if e.decl == nil {
		return Internal // the zero Error
	}
	return e.decl
}

// Attr returns the value of the attribute name, nil when the error does not carry it.
func (e *Error) Attr(name string) any { return e.attrs[name] }

// LookupAttr returns the value of the attribute name, and whether the error carries it (an
// attribute whose value is null is carried).
func (e *Error) LookupAttr(name string) (any, bool) {
	v, ok := e.attrs[name]
	return v, ok
}

// Attrs returns the error's attributes, in name order (the order of the message).
func (e *Error) Attrs() iter.Seq2[string, any] {
	return func(yield func(string, any) bool) {
		for _, k := range e.attrNames() {
			if !yield(k, e.attrs[k]) {
				return
			}
		}
	}
}

// With returns a copy of e with the attribute name set to v. A name that e's declaration does
// not declare, or that the message itself uses (type, error, id), is not sent: it is malformed,
// as in New.
func (e *Error) With(name string, v any) *Error {
	c := e.clone()
	c.add(name, v)
	return c
}

// WithStatus returns a copy of e answered with HTTP status code s instead of its declaration's.
// It is for the rare return site whose answer differs from the code's usual one (the
// framework's TIMEOUT for a body that arrived too slowly answers 408, not 504); a code whose
// every error has another status is declared with that status instead.
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
	c.attrs = maps.Clone(e.attrs)
	c.malformed = slices.Clone(e.malformed)
	return &c
}

// set is for building an error (New, With, UnmarshalJSON) before anyone else sees it.
func (e *Error) set(name string, v any) {
	if reserved(name) {
		return
	}
	if e.attrs == nil {
		e.attrs = make(map[string]any, 2)
	}
	e.attrs[name] = v
}

// Status returns the HTTP status that accompanies e: WithStatus's, else its declaration's.
func (e *Error) Status() int {
	if e.status != 0 {
		return e.status
	}
	return e.Declaration().status
}

// Error returns the code and the attributes, for logs and tests.
func (e *Error) Error() string {
	if len(e.attrs) == 0 && e.cause == nil && e.malformed == nil {
		return string(e.Declaration().code)
	}
	var b bytes.Buffer
	b.WriteString(string(e.Declaration().code))
	for k, v := range e.Attrs() {
		fmt.Fprintf(&b, " %s=%v", k, v)
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

// Is reports whether target is an *Error or a *Declaration with the same code, so that
// errors.Is(err, apierr.NotFound) matches any NOT-FOUND error, as does
// errors.Is(err, apierr.New(apierr.NotFound)).
func (e *Error) Is(target error) bool { return sameCode(e.Declaration().code, target) }

func (e *Error) attrNames() []string {
	return slices.Sorted(maps.Keys(e.attrs))
}

// MarshalJSON encodes e as an error message: {"type": "error", "error": code, attributes...},
// attributes in name order.
func (e *Error) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":"error","error":`)
	code, _ := json.Marshal(string(e.Declaration().code))
	b.Write(code)
	for k, a := range e.Attrs() {
		name, _ := json.Marshal(k)
		v, err := json.Marshal(a)
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

// UnmarshalJSON decodes an error message into e, replacing what e held, keeping every
// attribute but type and error (and the WebSocket id). A framework code gets the framework's
// declaration; any other code a declaration that knows only the code (HTTP 400).
func (e *Error) UnmarshalJSON(data []byte) error {
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	code, _ := m["error"].(string)
	if code == "" {
		return errors.New("apierr: message has no error code")
	}
	*e = Error{decl: known(Code(code))}
	for k, v := range m {
		e.set(k, v)
	}
	return nil
}

// From returns err as an *Error: itself when it is one (or wraps one), an error of the code
// of a *Declaration returned as it is, CANCELLED for a cancelled context, TIMEOUT for a
// deadline, and INTERNAL-ERROR wrapping err otherwise. From(nil) is nil.
func From(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var d *Declaration
	switch {
	case errors.As(err, &d):
		if err == error(d) {
			return &Error{decl: d}
		}
		return &Error{decl: d, cause: err}
	case errors.Is(err, context.Canceled):
		return &Error{decl: Cancelled, cause: err}
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{decl: Timeout, cause: err}
	}
	return &Error{decl: Internal, cause: err}
}
