package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/dataservice/app"
)

// caller is what the HTTPS client and the WebSocket connection have in common, so that every
// scenario runs over both transports.
type caller interface {
	client.Caller
	Call(ctx context.Context, fn string, args any, out any) error
	Stream(ctx context.Context, fn string, args any) iter.Seq2[json.RawMessage, error]
}

type service struct {
	app *app.App
	srv *httptest.Server
	api string
	key string
}

// services counts the services started, to name their keys.
var services atomic.Int64

// start opens the real service (DuckDB, SQLite, auth) in a temporary directory and serves it
// over real TLS.
func start(t *testing.T, configure ...func(*app.Config)) *service {
	t.Helper()
	var cfg app.Config
	for _, f := range configure {
		f(&cfg)
	}
	s, _ := startWith(t, cfg)
	return s
}

// startWith opens the real service with cfg (a temporary data directory when it names none,
// and cheap password hashing), serves it over real TLS, logs in as the administrator, makes an
// API key, and returns the open app too.
func startWith(t *testing.T, cfg app.Config) (*service, *app.App) {
	t.Helper()
	ctx := context.Background()
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	cfg.Auth = append([]auth.Option{auth.WithArgon2(auth.Argon2{Memory: 64, Iterations: 1, Parallelism: 1}),
		auth.WithAdminPassword("correct horse battery staple")}, cfg.Auth...)
	a, err := app.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewTLSServer(a.Handler())
	t.Cleanup(func() {
		srv.Close()
		if err := a.Close(ctx); err != nil {
			t.Error(err)
		}
	})
	s := &service{app: a, srv: srv, api: srv.URL + "/api"}
	anon := s.http(t)
	session, err := client.Call(ctx, anon, authapi.Login, authapi.LoginArgs{User: "admin", Password: "correct horse battery staple"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(session, "session:") {
		t.Fatalf("login answered %q", session)
	}
	keyName := "tests"
	if cfg.Postgres != "" { // nodes of one service share their keys: each names its own
		keyName = fmt.Sprintf("tests-%d", services.Add(1))
	}
	if s.key, err = client.Call(ctx, s.http(t, client.WithSession(session)), authapi.CreateAPIKey, authapi.KeyArgs{Name: keyName}); err != nil {
		t.Fatal(err)
	}
	return s, a
}

func (s *service) http(t *testing.T, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(s.api, append([]client.Option{client.WithHTTPClient(s.srv.Client())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (s *service) ws(t *testing.T, path string, opts ...client.Option) *client.WSConn {
	t.Helper()
	url := "wss" + strings.TrimPrefix(s.srv.URL, "https") + path
	c, err := client.DialWS(context.Background(), url, append([]client.Option{client.WithHTTPClient(s.srv.Client())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func code(err error) apierr.Code {
	var e *apierr.Error
	if errors.As(err, &e) {
		return e.Code()
	}
	return ""
}
