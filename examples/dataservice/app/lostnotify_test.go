package app_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/internal/testutil"
)

// TestRoleReReadAfterLostNotification changes a user's role with the notification lost (the
// trigger off, as when the notifications' connection is down), then breaks the other node's
// notification connection: when it connects again it re-reads every cached token, so the
// demoted administrator is refused there, although its token cache trusts a token for an hour.
func TestRoleReReadAfterLostNotification(t *testing.T) {
	t.Parallel()
	pg := testenv.StartPostgres(t)
	url := pg.Database(t)
	node := func() *service {
		s, _ := startWith(t, app.Config{Postgres: url, Auth: []auth.Option{auth.WithCacheTTL(time.Hour)}})
		return s
	}
	a, b := node(), node()
	ctx := context.Background()
	onA := a.http(t, client.WithAPIKey(a.key))
	if err := onA.Call(ctx, "create-user", map[string]string{"user": "carol", "password": "carol's long password", "role": "administrator"}, nil); err != nil {
		t.Fatal(err)
	}
	var s string
	if err := b.http(t).Call(ctx, "login", map[string]string{"user": "carol", "password": "carol's long password"}, &s); err != nil {
		t.Fatal(err)
	}
	carol := b.http(t, client.WithSession(s))
	if err := carol.Call(ctx, "list-users", nil, nil); err != nil {
		t.Fatal(err)
	}

	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`ALTER TABLE auth_users DISABLE TRIGGER auth_users_changed`,
		`UPDATE auth_users SET role = 'read-only', admin = false WHERE name = 'carol'`,
		`ALTER TABLE auth_users ENABLE TRIGGER auth_users_changed`,
		`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND pid <> pg_backend_pid()`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	testutil.Until(t, testutil.Wait, "B refuses the demoted administrator after its notifications reconnect", func() error {
		err := carol.Call(ctx, "list-users", nil, nil)
		if code(err) == apierr.PermissionDenied.Code() {
			return nil
		}
		return fmt.Errorf("list-users answered %v", err)
	})
}
