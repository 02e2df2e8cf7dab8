package registry

import (
	"errors"
	"fmt"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/stream"
	"github.com/fnapi/fnapi/version"
)

// Access says which token a function needs. It is [decl.Access], so that a declaration's access
// and a registration's are one type.
type Access = decl.Access

const (
	// Token (the default) admits a call with any valid token: a session ID or an API key.
	Token = decl.Token
	// Public admits every call, without a token.
	Public = decl.Public
	// Session admits only a call with a valid session ID: an API key is refused.
	Session = decl.Session
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

// Requires sets the token the function needs. Default: Token.
func Requires(a Access) Option {
	return func(f *Func) error {
		if a < Token || a > Session {
			return fmt.Errorf("unknown access %d", a)
		}
		f.Access = a
		return nil
	}
}

// RequiresRole sets the role a caller must have, for the authentication interceptor to check
// (package auth names the roles and says what a function without one needs). The registry
// keeps it and doc shows it; it checks nothing itself. Default: none.
func RequiresRole(role string) Option {
	return func(f *Func) error {
		if role == "" {
			return fmt.Errorf("empty role")
		}
		f.Role = role
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
// connection's own limit (transport.WSConfig.MaxMessageBytes) whatever the function.
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
// session cookie from any page of the same site. Default: every function that needs a token
// may change something, and a call whose only token is the session cookie must come from the
// server's own origin (see package auth), against request forgery from sibling sites.
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
