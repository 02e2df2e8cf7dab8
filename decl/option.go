package decl

import (
	"errors"
	"fmt"
	"slices"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/version"
)

// Access says which token a function needs.
type Access int

const (
	// Token (the default) admits a call with any valid token: a session ID or an API key.
	Token Access = iota
	// Public admits every call, without a token.
	Public
	// Session admits only a call with a valid session ID: an API key is refused.
	Session
)

// String returns "token", "none" or "session", as doc shows it.
func (a Access) String() string {
	switch a {
	case Public:
		return "none"
	case Session:
		return "session"
	}
	return "token"
}

// Option is a property of a declared function.
type Option func(*spec) error

// Since sets the API version in which the function appears. Default: 1.0.
func Since(v string) Option {
	return func(s *spec) error {
		p, err := version.Parse(v)
		if err != nil {
			return fmt.Errorf("Since: %w", err)
		}
		s.since = p
		return nil
	}
}

// Until sets the API version from which the function is no longer served, because it was
// removed or replaced by another declaration of the same name. Default: served in every later
// version.
func Until(v string) Option {
	return func(s *spec) error {
		p, err := version.Parse(v)
		if err != nil {
			return fmt.Errorf("Until: %w", err)
		}
		s.until = &p
		return nil
	}
}

// Requires sets the token the function needs. Default: Token.
func Requires(a Access) Option {
	return func(s *spec) error {
		if a < Token || a > Session {
			return fmt.Errorf("unknown access %d", a)
		}
		s.access = a
		return nil
	}
}

// Errors states the codes the function answers besides apierr's catalogue, each by its
// declaration (apierr.Declare), so that doc describes them fully and callers can test for them
// with errors.Is(err, declaration). A nil declaration is refused.
func Errors(decls ...*apierr.Declaration) Option {
	return func(s *spec) error {
		if slices.Contains(decls, nil) {
			return errors.New("Errors: a nil declaration")
		}
		s.errors = append(s.errors, decls...)
		return nil
	}
}

// Describe sets the function's description, as doc shows it. Default: the Go doc comment of its
// implementation, when the registry has the Comments option; else none.
func Describe(text string) Option {
	return func(s *spec) error { s.description = text; return nil }
}
