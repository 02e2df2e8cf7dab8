package app_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/console"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/internal/testutil"
)

// refused returns nil when a call with the token is refused as unauthenticated.
func refused(c *client.Client) func() error {
	return func() error {
		err := c.Call(context.Background(), "list-api-keys", nil, nil)
		if code(err) == apierr.AuthenticationNeeded.Code() {
			return nil
		}
		return fmt.Errorf("answered %v", err)
	}
}

// twoNodes starts two nodes of one service on a fresh PostgreSQL database, with token caches
// that would trust a token for an hour without the notifications.
func twoNodes(t *testing.T) (a, b *service, pg *testenv.Postgres) {
	t.Helper()
	pg = testenv.StartPostgres(t)
	url := pg.Database(t)
	node := func() *service {
		s, _ := startWith(t, app.Config{Postgres: url, Auth: []auth.Option{auth.WithCacheTTL(time.Hour)}})
		return s
	}
	return node(), node(), pg
}

// TestNodesAgree checks that what one node changes takes effect on the other at once.
func TestNodesAgree(t *testing.T) {
	t.Parallel()
	a, b, _ := twoNodes(t)
	ctx := context.Background()
	session := func() string {
		var s string
		if err := a.http(t).Call(ctx, "login", map[string]string{"user": "admin", "password": "correct horse battery staple"}, &s); err != nil {
			t.Fatal(err)
		}
		return s
	}

	t.Run("session made on one node works on the other", func(t *testing.T) {
		if err := b.http(t, client.WithSession(session())).Call(ctx, "list-api-keys", nil, nil); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("ended session", func(t *testing.T) {
		s := session()
		onB := b.http(t, client.WithSession(s))
		if err := onB.Call(ctx, "list-api-keys", nil, nil); err != nil {
			t.Fatal(err)
		}
		if err := a.http(t, client.WithSession(s)).Call(ctx, "logout", nil, nil); err != nil {
			t.Fatal(err)
		}
		testutil.Until(t, testutil.Wait, "B refuses a session ended on A", refused(onB))
	})
	t.Run("revoked key", func(t *testing.T) {
		onA := a.http(t, client.WithSession(session()))
		var key string
		if err := onA.Call(ctx, "create-api-key", map[string]string{"name": "revoked"}, &key); err != nil {
			t.Fatal(err)
		}
		onB := b.http(t, client.WithAPIKey(key))
		if err := onB.Call(ctx, "list-api-keys", nil, nil); err != nil {
			t.Fatal(err)
		}
		if err := onA.Call(ctx, "revoke-api-key", map[string]string{"name": "revoked"}, nil); err != nil {
			t.Fatal(err)
		}
		testutil.Until(t, testutil.Wait, "B refuses a key revoked on A", refused(onB))
	})
	t.Run("deleted user", func(t *testing.T) {
		onA := a.http(t, client.WithSession(session()))
		if err := onA.Call(ctx, "create-user", map[string]string{"user": "bob", "password": "bob's long password"}, nil); err != nil {
			t.Fatal(err)
		}
		var bob string
		if err := a.http(t).Call(ctx, "login", map[string]string{"user": "bob", "password": "bob's long password"}, &bob); err != nil {
			t.Fatal(err)
		}
		onB := b.http(t, client.WithSession(bob))
		if err := onB.Call(ctx, "list-api-keys", nil, nil); err != nil {
			t.Fatal(err)
		}
		if err := onA.Call(ctx, "delete-user", map[string]string{"user": "bob"}, nil); err != nil {
			t.Fatal(err)
		}
		testutil.Until(t, testutil.Wait, "B refuses the session of a user deleted on A", refused(onB))
	})
	t.Run("configuration", func(t *testing.T) {
		onA, onB := a.http(t, client.WithAPIKey(a.key)), b.http(t, client.WithAPIKey(b.key))
		if err := onA.Call(ctx, "set-config", map[string]any{"values": map[string]any{"session_idle": "2h", "default_period": "90s"}}, nil); err != nil {
			t.Fatal(err)
		}
		testutil.Until(t, testutil.Wait, "B sees the configuration set on A", func() error {
			var cfg map[string]any
			if err := onB.Call(ctx, "get-config", nil, &cfg); err != nil {
				return err
			}
			if cfg["default_period"] != "90s" || cfg["session_idle"] != "2h" {
				return fmt.Errorf("get-config on B = %v", cfg)
			}
			return nil
		})
	})
	t.Run("audit trail", func(t *testing.T) {
		onA, onB := a.http(t, client.WithAPIKey(a.key)), b.http(t, client.WithAPIKey(b.key))
		if err := onA.Call(ctx, "create-user", map[string]string{"user": "audited-a", "password": "a long enough password"}, nil); err != nil {
			t.Fatal(err)
		}
		if err := onB.Call(ctx, "create-user", map[string]string{"user": "audited-b", "password": "a long enough password"}, nil); err != nil {
			t.Fatal(err)
		}
		for _, c := range []*client.Client{onA, onB} {
			var events []struct {
				User, Key, Action string
				Details           map[string]any
			}
			if err := c.Call(ctx, "list-audit", map[string]any{"limit": 2}, &events); err != nil {
				t.Fatal(err)
			}
			if len(events) != 2 || events[0].Details["user"] != "audited-b" || events[0].Key == "" ||
				events[1].Details["user"] != "audited-a" || events[1].Action != "create-user" || events[1].User != "admin" {
				t.Fatalf("list-audit on one node shows %+v, want both nodes' create-user, newest first", events)
			}
		}
	})
}

// TestAdminCreatedOnce starts two nodes of a new service at once, with generated passwords:
// one creates the administrator, and only its password file remains.
func TestAdminCreatedOnce(t *testing.T) {
	// Serial: t.Setenv sets the process environment.
	pg := testenv.StartPostgres(t)
	url := pg.Database(t)
	t.Setenv("SVC_ADMIN_PASSWORD", "")
	dirs := []string{t.TempDir(), t.TempDir()}
	var wg sync.WaitGroup
	for _, dir := range dirs {
		wg.Go(func() {
			a, err := app.Open(context.Background(), app.Config{DataDir: dir, Postgres: url,
				Auth: []auth.Option{auth.WithArgon2(auth.Argon2{Memory: 64, Iterations: 1, Parallelism: 1})}})
			if err != nil {
				t.Error(err)
				return
			}
			a.Close(context.Background())
		})
	}
	wg.Wait()
	var files int
	for _, dir := range dirs {
		if _, err := os.Stat(filepath.Join(dir, auth.AdminPasswordFile)); err == nil {
			files++
		}
	}
	if files != 1 {
		t.Fatalf("%d password files for one administrator", files)
	}
}

// TestPostgresRestartUnderLoad stops PostgreSQL while calls run: they fail with UNAVAILABLE
// (503) and within their deadline, readiness turns false, and once the server is back the node
// serves again by itself.
func TestPostgresRestartUnderLoad(t *testing.T) {
	// Serial: calls must fail within their deadline, which parallel tests would stretch.
	a, _, pg := twoNodes(t)
	c := a.http(t, client.WithAPIKey(a.key))
	ctx := context.Background()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[apierr.Code]int{} // answers since the last reset
	seen := map[apierr.Code]int{}  // every answer
	for range 4 {
		wg.Go(func() {
			// Calls at a steady rate: 4 x 40 a second stays under the caller's rate limit
			// (200 a second), which failing calls, answered at once, would otherwise reach.
			pace := time.NewTicker(25 * time.Millisecond)
			defer pace.Stop()
			for {
				select {
				case <-stop:
					return
				case <-pace.C:
				}
				cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
				err := c.Call(cctx, "list-dashboards", nil, nil)
				cancel()
				mu.Lock()
				switch {
				case err == nil:
					codes["ok"]++
					seen["ok"]++
				case code(err) != "":
					codes[code(err)]++
					seen[code(err)]++
				default:
					t.Errorf("a call failed without an error message: %v", err)
				}
				mu.Unlock()
			}
		})
	}
	pg.Stop(t)
	testutil.Until(t, testutil.Wait, "readiness turns false", func() error {
		if status, _ := getHealth(t, a, console.ReadyPath); status != 503 {
			return fmt.Errorf("readiness %d", status)
		}
		return nil
	})
	testutil.Until(t, testutil.Wait, "calls answer UNAVAILABLE", func() error {
		mu.Lock()
		defer mu.Unlock()
		if codes[apierr.Unavailable.Code()] == 0 {
			return fmt.Errorf("codes %v", codes)
		}
		return nil
	})
	pg.Start(t)
	testutil.Until(t, testutil.Wait, "the node is ready again", func() error {
		if status, body := getHealth(t, a, console.ReadyPath); status != 200 {
			return fmt.Errorf("readiness %d %s", status, body)
		}
		return nil
	})
	mu.Lock()
	codes = map[apierr.Code]int{}
	mu.Unlock()
	testutil.Until(t, testutil.Wait, "calls succeed again", func() error {
		mu.Lock()
		defer mu.Unlock()
		if codes["ok"] < 10 {
			return fmt.Errorf("codes %v", codes)
		}
		return nil
	})
	close(stop)
	wg.Wait()
	for code, n := range seen {
		if code != "ok" && code != apierr.Unavailable.Code() {
			t.Errorf("%d calls answered %s; want only UNAVAILABLE while the database is down", n, code)
		}
	}
}
