package sqlstore_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/auth/authtest"
	"github.com/fnapi/fnapi/auth/sqlstore"
)

func open(t *testing.T, path string) *sqlstore.Store {
	t.Helper()
	s, err := sqlstore.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestStore(t *testing.T) {
	authtest.Run(t, func(t *testing.T) auth.Store {
		return open(t, filepath.Join(t.TempDir(), "auth.db"))
	})
}

func openStore(ctx context.Context, path string) (*sqlstore.Store, error) {
	return sqlstore.Open(ctx, path)
}
