package manage_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/examples/dataservice/manage"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/state/statedb"
	"github.com/fnapi/fnapi/internal/apitest"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/transport"
	"go.uber.org/zap/zaptest"
)

// newAuthEnv is newEnv with the real authentication (users admin and mallory, their
// passwords their names twice) in front of the audit trail.
func newAuthEnv(t *testing.T, limits state.Limits) *env {
	t.Helper()
	ctx := context.Background()
	st, err := statedb.OpenSQLite(ctx, t.TempDir(), statedb.WithLimits(limits))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	a, err := auth.New(auth.NewMemoryStore(), auth.WithArgon2(auth.Argon2{Memory: 64, Iterations: 1, Parallelism: 1}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close(ctx) })
	for user, role := range map[string]authapi.Role{"admin": authapi.RoleAdmin, "mallory": authapi.RoleUser} {
		if err := a.CreateUser(ctx, user, user+user, role); err != nil {
			t.Fatal(err)
		}
	}
	settings, err := manage.NewSettings(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	a.MustRegister(reg)
	manage.MustRegister(reg, st, settings)
	h, err := transport.New(reg, transport.Config{Interceptors: []registry.Interceptor{a.Interceptor(),
		manage.AuditInterceptor(st, zaptest.NewLogger(t))}})
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, srv: apitest.Serve(t, h), store: st, settings: settings}
}

// login answers a session of user.
func (e *env) login(user, password string) string {
	e.t.Helper()
	var sess string
	e.post("login", map[string]any{"user": user, "password": password}, "").result(e.t, &sess)
	return sess
}

// as calls fn with the session.
func (e *env) as(sess, fn string, args map[string]any) reply {
	e.t.Helper()
	a := map[string]any{"_session": sess}
	for k, v := range args {
		a[k] = v
	}
	return e.post(fn, a, "")
}

// TestSecuritySelfServicePastQuota checks that a user whose events fill its audit quota (a
// session's holder creating and revoking keys) can still revoke its keys and change its
// password, whose events are written and stay bounded; an administrator past its own quota
// can still delete a user; and a user created again under the same name starts afresh.
func TestSecuritySelfServicePastQuota(t *testing.T) {
	t.Parallel()
	e := newAuthEnv(t, state.Limits{AuditPerActor: 4})
	m := e.login("mallory", "mallorymallory")
	for _, r := range []reply{
		e.as(m, "create-api-key", map[string]any{"name": "k1"}),
		e.as(m, "create-api-key", map[string]any{"name": "k2"}),
		e.as(m, "create-api-key", map[string]any{"name": "k3"}),
		e.as(m, "revoke-api-key", map[string]any{"name": "k1"}),
	} {
		if !r.ok() {
			t.Fatalf("filling the quota: %d %s", r.status, r.raw)
		}
	}
	if r := e.as(m, "create-api-key", map[string]any{"name": "k4"}); r.msg["error"] != "LIMIT-REACHED" {
		t.Fatalf("an audited change past the quota: %d %s", r.status, r.raw)
	}
	if r := e.as(m, "revoke-api-key", map[string]any{"name": "k2"}); !r.ok() {
		t.Errorf("revoking a key past the quota: %d %s", r.status, r.raw)
	}
	if r := e.as(m, "change-password", map[string]any{"old": "mallorymallory", "new": "a new password"}); !r.ok() {
		t.Errorf("changing the password past the quota: %d %s", r.status, r.raw)
	}
	m = e.login("mallory", "a new password")
	if r := e.as(m, "revoke-api-key", map[string]any{"name": "k3"}); !r.ok() {
		t.Errorf("revoking a key past the quota: %d %s", r.status, r.raw)
	}
	var trail []map[string]any
	e.as(e.login("admin", "adminadmin"), "list-audit", nil).result(t, &trail)
	var actions []string
	for _, ev := range trail {
		actions = append(actions, ev["action"].(string))
	}
	want := "[revoke-api-key change-password create-api-key create-api-key create-api-key]"
	if got := fmt.Sprint(actions); got != want {
		t.Errorf("mallory's trail %s, want %s: the latest revocation in place of the older ones", got, want)
	}

	admin := e.login("admin", "adminadmin")
	for _, c := range []struct {
		fn, user string
	}{{"delete-user", "mallory"}, {"create-user", "mallory"}, {"create-user", "x1"}, {"create-user", "x2"}} {
		args := map[string]any{"user": c.user}
		if c.fn == "create-user" {
			args["password"] = "another password"
		}
		if r := e.as(admin, c.fn, args); !r.ok() {
			t.Fatalf("%s %s: %d %s", c.fn, c.user, r.status, r.raw)
		}
	}
	if r := e.as(admin, "create-user", map[string]any{"user": "x3", "password": "another password"}); r.msg["error"] != "LIMIT-REACHED" {
		t.Fatalf("the administrator's change past its quota: %d %s", r.status, r.raw)
	}
	if r := e.as(admin, "delete-user", map[string]any{"user": "x1"}); !r.ok() {
		t.Errorf("deleting a user past the administrator's quota: %d %s", r.status, r.raw)
	}
	m = e.login("mallory", "another password")
	if r := e.as(m, "create-api-key", map[string]any{"name": "k1"}); !r.ok() {
		t.Errorf("a user created again under the same name inherits the old one's quota: %d %s", r.status, r.raw)
	}
}
