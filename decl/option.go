package decl

import (
	"errors"
	"fmt"
	"reflect"
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

// Requirement is what a caller needs to call a function, as Requires states it: a kind of
// token (Token, Public or Session), or a role, of a string type such as authapi.Role, which the
// authentication interceptor checks against the caller's (the registry and doc keep and show
// it; a role type with a Valid method has it checked when the option is built).
type Requirement interface{ Access | ~string }

// Requires states what a caller needs: a token of a kind (default Token) or a role (default
// none). Give it twice for both. registry.Requires is the same for a function registered
// without a declaration.
func Requires[R Requirement](r R) Option {
	a, role, err := Need(r)
	return func(s *spec) error {
		if err != nil {
			return err
		}
		if role != "" {
			s.role = role
		} else {
			s.access = a
		}
		return nil
	}
}

// Need returns the token kind or the role r stands for (role "" for an Access), or an error
// for an unknown Access, an empty role or a role whose Valid method refuses it. It is what
// Requires and registry.Requires read.
func Need[R Requirement](r R) (Access, string, error) {
	if a, ok := any(r).(Access); ok {
		if a < Token || a > Session {
			return 0, "", fmt.Errorf("unknown access %d", a)
		}
		return a, "", nil
	}
	role := reflect.ValueOf(r).String()
	if role == "" {
		return 0, "", errors.New("empty role")
	}
	if v, ok := any(r).(interface{ Valid() bool }); ok && !v.Valid() {
		return 0, "", fmt.Errorf("unknown role %q", role)
	}
	return 0, role, nil
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

// ReadOnly declares that the function changes nothing: the server answers its GETs with an
// ETag and 304 to a current If-None-Match (registry.ReadOnly), and the Go client's typed Call
// sends it as a conditional GET, answered from the client's copy while unchanged
// (client.WithReadCache). Default: off, a function that may change things.
func ReadOnly() Option {
	return func(s *spec) error { s.readOnly = true; return nil }
}

// Describe sets the function's description, as doc shows it. Default: the Go doc comment of its
// implementation, when the registry has the Comments option; else none.
func Describe(text string) Option {
	return func(s *spec) error { s.description = text; return nil }
}
