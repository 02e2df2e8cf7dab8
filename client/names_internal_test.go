package client

import (
	"testing"

	"github.com/fnapi/fnapi/decl"
)

// TestDefaultNames: the client's default token names are the server's.
func TestDefaultNames(t *testing.T) {
	t.Parallel()
	o := newOptions(nil)
	if o.cookie != decl.DefaultSessionCookie || o.keyHeader != decl.DefaultKeyHeader {
		t.Errorf("client defaults %q, %q; the server's are %q, %q", o.cookie, o.keyHeader,
			decl.DefaultSessionCookie, decl.DefaultKeyHeader)
	}
}

// TestWithNames: the names a server was given rename the client's; an empty one keeps its
// default.
func TestWithNames(t *testing.T) {
	t.Parallel()
	o := newOptions([]Option{WithNames(decl.Names{KeyHeader: "X-Key"})})
	if o.cookie != decl.DefaultSessionCookie || o.keyHeader != "X-Key" {
		t.Errorf("WithNames(KeyHeader X-Key): %q, %q", o.cookie, o.keyHeader)
	}
}
