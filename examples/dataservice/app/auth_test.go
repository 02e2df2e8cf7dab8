package app_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/examples/dataservice/api"
)

// TestAuthenticationAndVersions checks what an anonymous caller meets, and the two API
// versions.
func TestAuthenticationAndVersions(t *testing.T) {
	t.Parallel()
	s := start(t)
	ctx := context.Background()
	anon := s.http(t)
	err := anon.Call(ctx, "query", map[string]any{"expr": "traffic"}, nil)
	var e *apierr.Error
	if !errors.As(err, &e) || e.Code() != apierr.AuthenticationNeeded.Code() || e.Attr("path") != "query" {
		t.Fatalf("anonymous query: %v", err)
	}
	if _, err := client.Call(ctx, anon, authapi.Login, authapi.LoginArgs{User: "admin", Password: "wrong"}); !errors.Is(err, apierr.New(apierr.InvalidCredentials)) {
		t.Fatalf("bad login: %v", err)
	}
	withKey := s.http(t, client.WithAPIKey(s.key))
	if _, err := client.Call(ctx, withKey, authapi.CreateAPIKey, authapi.KeyArgs{Name: "second"}); !errors.Is(err, apierr.New(apierr.AuthenticationNeeded)) {
		t.Fatalf("create-api-key with a key: %v", err)
	}
	fields12, err := client.Call(ctx, withKey, api.ListFields12, decl.None{})
	if err != nil || !slices.ContainsFunc(fields12, func(f api.Field) bool { return f.Name == "exporter" && f.Kind == "key" && f.Since == "1.2" }) {
		t.Fatalf("list-fields at 1.2 lacks the exporter key: %v %v", fields12, err)
	}
	if !slices.ContainsFunc(fields12, func(f api.Field) bool { return f.Name == "p95(m)" && f.Kind == "function" && f.Since == "1.3" }) {
		t.Fatalf("list-fields lacks the p95 function: %v", fields12)
	}
	if !slices.ContainsFunc(fields12, func(f api.Field) bool { return f.Name == "http.host" && slices.Equal(f.Layers, []string{"http"}) }) {
		t.Fatalf("list-fields at 1.4 lacks http.host of layer http: %v", fields12)
	}
	// The versions below are named on purpose, through the dynamic client.
	var fields []struct{ Name, Kind, Since string }
	v11 := s.http(t, client.WithAPIKey(s.key), client.WithVersion("1.1"))
	if err := v11.Call(ctx, "list-fields", nil, &fields); err != nil || len(fields) == 0 ||
		slices.ContainsFunc(fields, func(f struct{ Name, Kind, Since string }) bool { return f.Name == "exporter" }) {
		t.Fatalf("list-fields at 1.1: %v %v", fields, err)
	}
	v10 := s.http(t, client.WithAPIKey(s.key), client.WithVersion("1.0"))
	if err := v10.Call(ctx, "list-fields", nil, nil); code(err) != apierr.UnknownFunction.Code() {
		t.Fatalf("list-fields at 1.0: %v", err)
	}
	var doc struct {
		Version   string
		Versions  []string
		Functions []struct{ Name, Auth, Role string }
	}
	if err := v10.Call(ctx, "doc", nil, &doc); err != nil || doc.Version != "1.0" || strings.Join(doc.Versions, ",") != "1.0,1.1,1.2,1.3,1.4" {
		t.Fatalf("doc at 1.0: %+v %v", doc, err)
	}
	var latest struct {
		Functions []struct{ Name, Description string }
	}
	if err := withKey.Call(ctx, "doc", nil, &latest); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(latest.Functions, func(f struct{ Name, Description string }) bool {
		return f.Name == "query" && strings.Contains(f.Description, "exporter")
	}) {
		t.Errorf("doc does not name the exporter key in query's description: %+v", latest.Functions)
	}
	auths, roles := map[string]string{}, map[string]string{}
	for _, f := range doc.Functions {
		auths[f.Name], roles[f.Name] = f.Auth, f.Role
	}
	for fn, want := range map[string]string{"echo": "", "query": "read-only", "create-widget": "user", "set-config": "administrator", "delete-user": "administrator", "change-password": "read-only"} {
		if roles[fn] != want {
			t.Errorf("doc: %s role %q, want %q", fn, roles[fn], want)
		}
	}
	for fn, want := range map[string]string{"login": "none", "query": "token", "create-api-key": "session", "create-widget": "token", "echo": "none"} {
		if auths[fn] != want {
			t.Errorf("doc: %s auth %q, want %q", fn, auths[fn], want)
		}
	}
}
