package auth_test

import (
	"testing"

	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/auth/authtest"
)

func TestMemoryStore(t *testing.T) {
	t.Parallel()
	authtest.Run(t, func(*testing.T) auth.Store { return auth.NewMemoryStore() })
}
