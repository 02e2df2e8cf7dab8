package client

import (
	"testing"

	"github.com/fnapi/fnapi/registry"
)

// TestDefaultNames: the client's default token names are the server's.
func TestDefaultNames(t *testing.T) {
	t.Parallel()
	o := newOptions(nil)
	if o.cookie != registry.DefaultSessionCookie || o.keyHeader != registry.DefaultKeyHeader {
		t.Errorf("client defaults %q, %q; the server's are %q, %q", o.cookie, o.keyHeader,
			registry.DefaultSessionCookie, registry.DefaultKeyHeader)
	}
}
