package main

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/client"
	"go.uber.org/zap"
)

// TestAuthenticator calls with each kind of token: none, unknown, a user's and an
// administrator's, through the framework's own client as any caller would.
func TestAuthenticator(t *testing.T) {
	t.Parallel()
	d, err := parseTokens("ann:admin:token-of-ann, bob:user:token-of-bob")
	if err != nil {
		t.Fatal(err)
	}
	mux, err := newMux(d, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewTLSServer(mux)
	defer srv.Close()
	ctx := context.Background()
	as := func(key string) *client.Client {
		opts := []client.Option{client.WithHTTPClient(srv.Client())}
		if key != "" {
			opts = append(opts, client.WithAPIKey(key))
		}
		c, _ := client.New(srv.URL+"/api", opts...)
		return c
	}
	for _, tc := range []struct {
		key, fn string
		want    string
		code    *apierr.Declaration
	}{
		{"", "echo", "", nil}, // public
		{"", "whoami", "", apierr.AuthenticationNeeded},
		{"token-of-eve", "whoami", "", apierr.AuthenticationNeeded},
		{"token-of-bob", "whoami", "bob", nil},
		{"token-of-bob", "purge", "", apierr.PermissionDenied},
		{"token-of-ann", "purge", "purged by ann", nil},
	} {
		var got any
		err := as(tc.key).Call(ctx, tc.fn, nil, &got)
		switch {
		case tc.code != nil && !errors.Is(err, tc.code):
			t.Errorf("%s with %q: %v, want %s", tc.fn, tc.key, err, tc.code.Code())
		case tc.code == nil && err != nil:
			t.Errorf("%s with %q: %v", tc.fn, tc.key, err)
		case tc.want != "" && got != tc.want:
			t.Errorf("%s with %q = %v, want %q", tc.fn, tc.key, got, tc.want)
		}
	}
}

// TestParseTokens refuses a malformed list instead of serving with part of it.
func TestParseTokens(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"", "ann", "ann:admin", "ann:admin:short", ":admin:long-enough", "ann::long-enough"} {
		if _, err := parseTokens(bad); err == nil || !strings.Contains(err.Error(), "name:role:token") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
