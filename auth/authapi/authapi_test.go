package authapi_test

import (
	"testing"

	"github.com/fnapi/fnapi/internal/leaf"

	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/decl"
)

// TestImports checks that a Go client of the identity functions pulls neither auth's server
// code nor a driver: only fnapi's declarations, error codes and versions.
func TestImports(t *testing.T) {
	leaf.Check(t, "github.com/fnapi/fnapi/apierr", "github.com/fnapi/fnapi/version",
		"github.com/fnapi/fnapi/decl", "github.com/fnapi/fnapi/auth/authapi")
}

func TestRoles(t *testing.T) {
	if !authapi.RoleAdmin.Allows(authapi.RoleUser) || authapi.RoleReadOnly.Allows(authapi.RoleUser) ||
		authapi.Role("root").Valid() || authapi.RoleUser.Allows("root") {
		t.Fatal("role order differs")
	}
	if authapi.Login.Access() != decl.Public || authapi.CreateAPIKey.Access() != decl.Session ||
		authapi.Logout.Access() != decl.Session || authapi.ListUsers.Access() != decl.Token {
		t.Fatal("access differs from auth.Register's documentation")
	}
}
