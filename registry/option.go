package registry

import (
	"errors"
	"fmt"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/stream"
	"github.com/fnapi/fnapi/version"
)

// Option configures a function at registration.
type Option func(*Func) error

// Args names the plain parameters of the function, in order (after the context). It is needed
// for, and only for, functions whose arguments are plain parameters.
func Args(names ...string) Option {
	return func(f *Func) error { f.argNames = names; return nil }
}

// Describe sets the function's description, as doc shows it. Default: the Go doc comment of
// the function, when Comments provides it; else none.
func Describe(text string) Option {
	return func(f *Func) error { f.Description = text; return nil }
}

// Since sets the API version in which the function appears. Default: 1.0.
func Since(v string) Option {
	return func(f *Func) error {
		p, err := version.Parse(v)
		if err != nil {
			return fmt.Errorf("Since: %w", err)
		}
		f.Since = p
		return nil
	}
}

// Until sets the API version from which the function is no longer served, because it was
// removed or replaced by another registration of the same name. Default: served in every later
// version.
func Until(v string) Option {
	return func(f *Func) error {
		p, err := version.Parse(v)
		if err != nil {
			return fmt.Errorf("Until: %w", err)
		}
		f.Until = &p
		return nil
	}
}

// Requires states what a caller needs, as decl.Requires does for a declared function: a kind
// of token (decl.Token, the default; decl.Public; decl.Session) or a role (a string type such
// as authapi.Role: the authentication interceptor checks it, see package auth; the registry
// keeps it and doc shows it). Give it twice for both. Default: decl.Token and no role.
func Requires[R decl.Requirement](r R) Option {
	a, role, err := decl.Need(r)
	return func(f *Func) error {
		if err != nil {
			return err
		}
		if role != "" {
			f.Role = role
		} else {
			f.Access = a
		}
		return nil
	}
}

// Errors states the codes the function may answer besides the framework's catalogue, each by
// its declaration (apierr.Declare), so that doc describes them: status, description and
// attributes. A framework code given here is listed with the function's own. Register refuses a
// nil declaration, and a code whose declaration differs from the one another function, or the
// catalogue, gave for it: a code is declared once.
func Errors(decls ...*apierr.Declaration) Option {
	return func(f *Func) error {
		for _, d := range decls {
			if d == nil {
				return errors.New("Errors: a nil declaration")
			}
		}
		f.Errors = append(f.Errors, decls...)
		return nil
	}
}

// Accumulate sets how the chunks of a streaming function build the result of a non-streaming
// call. Default: [stream.Append], an array of every chunk.
func Accumulate(a stream.Accumulator) Option {
	return func(f *Func) error { f.acc = &a; return nil }
}

// DefaultMaxBody is the body limit of a function that sets none with MaxBody: 1 MiB. It is also
// the most of a body a transport reads before the caller's token is checked.
const DefaultMaxBody = 1 << 20

// MaxBody sets the most bytes the request body of an HTTP call may hold (a multipart body
// counts whole); a larger one answers REQUEST-TOO-LARGE with its limit. Default:
// DefaultMaxBody. For a function that needs a token, a body larger than DefaultMaxBody is read
// only once the token is checked, so it must come in the header, the cookie or the query
// string: a token in such a body is refused. Over WebSocket, a message is limited by the
// connection's own limit (fnapi.WithWSMaxMessageBytes) whatever the function.
func MaxBody(n int64) Option {
	return func(f *Func) error {
		if n <= 0 {
			return fmt.Errorf("MaxBody: %d is not positive", n)
		}
		f.MaxBody = n
		return nil
	}
}

// ReadOnly declares that the function changes nothing: a browser may call it with only the
// session cookie from any page of the same site, and its answers to GET carry an ETag, so
// that a poll with If-None-Match gets 304 while nothing changed (see package transport).
// Default: every function that needs a token may change something, and a call whose only
// token is the session cookie must come from the server's own origin (see package auth),
// against request forgery from sibling sites; such a function takes an Idempotency-Key
// instead. A declaration says it with decl.ReadOnly, which typed Go clients read too.
func ReadOnly() Option {
	return func(f *Func) error { f.ReadOnly = true; return nil }
}

// NoStore declares that the function's answers carry secrets (a session ID, an API key): the
// transport answers them with Cache-Control: no-store, so that no browser or proxy cache keeps
// them, and never compresses them, so that their length cannot reveal a secret put next to
// text the caller chose (BREACH). Default: off.
func NoStore() Option {
	return func(f *Func) error { f.NoStore = true; return nil }
}
