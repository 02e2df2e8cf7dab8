package authapi_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/decl"
)

// TestImports checks that a Go client of the identity functions pulls neither auth's server
// code nor a driver: only fnapi's declarations, error codes and versions.
func TestImports(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command in PATH")
	}
	out, err := exec.Command(gobin, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	want := map[string]bool{
		"github.com/fnapi/fnapi/apierr": true, "github.com/fnapi/fnapi/version": true,
		"github.com/fnapi/fnapi/decl": true, "github.com/fnapi/fnapi/auth/authapi": true,
	}
	for _, p := range strings.Fields(string(out)) {
		if !want[p] {
			t.Errorf("package authapi imports %s", p)
		}
	}
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
