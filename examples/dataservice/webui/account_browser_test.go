package webui_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/examples/dataservice/api"
)

// testAccount drives the account menu's views: an API key created in the page works from Go
// until it is revoked in the page; a user is created and deleted; a setting changed in the page
// is what get-config answers, and a bad duration is refused with its key named; the password
// form shows the server's errors. A user who is not an administrator has no Users view.
func testAccount(t *testing.T, browser context.Context, srv *httptest.Server) {
	p, problems := openTab(t, browser)
	tab := p.ctx
	p.signIn(srv.URL + "/")

	t.Run("api key", func(t *testing.T) {
		p := &page{t: t, ctx: tab}
		p.openMenu("#keys-link", "#keys-view")
		p.do(
			chromedp.Click(chromedp.CSS("#new-key")),
			chromedp.WaitVisible(chromedp.CSS("#key-name")),
			chromedp.SendKeys(chromedp.CSS("#key-name"), "browser-test"),
			chromedp.Click(chromedp.CSS("#key-save")),
			chromedp.WaitVisible(chromedp.CSS("#key-value")),
		)
		key := p.eval(`document.getElementById('key-value').value`)
		if !strings.HasPrefix(key, "secret:") {
			t.Fatalf("the dialog shows %q, not an API key", key)
		}
		if got := p.text("#key-shown-dialog .warning"); !strings.Contains(got, "will not be shown again") {
			t.Errorf("the key's dialog warns %q", got)
		}
		p.screenshot(filepath.Join(os.TempDir(), "fnapi-webui-api-key.png"))
		p.do(chromedp.Click(chromedp.CSS("#key-done")), chromedp.WaitNotVisible(chromedp.CSS("#key-shown-dialog")))
		p.poll(`document.getElementById('key-value').value === ''`) // gone once the dialog closed
		if got := p.eval(`JSON.stringify(sessionStorage) + JSON.stringify(localStorage)`); strings.Contains(got, key) {
			t.Errorf("the page kept the key: %s", got)
		}
		row := `tr[data-name="browser-test"]`
		p.poll(fmt.Sprintf(`document.querySelector('%s td:nth-child(3)')?.textContent === 'Never'`, row))

		withKey := newClient(t, srv, client.WithAPIKey(key))
		if _, err := client.Call(context.Background(), withKey, api.ListDashboards, decl.None{}); err != nil {
			t.Fatalf("list-dashboards with the key from the page: %v", err)
		}
		p.reshow("#/keys", "#keys-view")
		p.poll(fmt.Sprintf(`document.querySelector('%s td:nth-child(3)')?.textContent !== 'Never'`, row))
		p.screenshot(filepath.Join(os.TempDir(), "fnapi-webui-keys.png"))

		p.do(
			chromedp.Click(chromedp.CSS(row+" .revoke-key")),
			chromedp.WaitVisible(chromedp.CSS("#confirm-ok")),
		)
		if got := p.text("#confirm-ok"); got != "Revoke" {
			t.Errorf("the confirmation's button says %q, want Revoke", got)
		}
		p.do(chromedp.Click(chromedp.CSS("#confirm-ok")))
		p.poll(fmt.Sprintf(`!document.querySelector('%s') && !document.getElementById('keys-empty').hidden`, row))
		err := withKey.Call(context.Background(), "list-dashboards", nil, nil)
		if e := apierr.From(err); e == nil || e.Code() != "API-AUTHENTICATION-NEEDED" {
			t.Errorf("list-dashboards with the revoked key: %v, want API-AUTHENTICATION-NEEDED", err)
		}
	})

	t.Run("users", func(t *testing.T) {
		p := &page{t: t, ctx: tab}
		p.openMenu("#users-link", "#users-view")
		p.createUser("viewer", "viewer-password")
		p.screenshot(filepath.Join(os.TempDir(), "fnapi-webui-users.png"))
		if got := p.text(`tr[data-user="admin"] .row-actions`); got != "You" {
			t.Errorf("the signed-in user's row offers %q, want You (nobody deletes themselves)", got)
		}
		// A name taken shows CONFLICT in words.
		p.do(
			chromedp.Click(chromedp.CSS("#new-user")),
			chromedp.WaitVisible(chromedp.CSS("#user-name-input")),
			chromedp.SendKeys(chromedp.CSS("#user-name-input"), "viewer"),
			chromedp.SendKeys(chromedp.CSS("#user-password-input"), "another-password"),
			chromedp.Click(chromedp.CSS("#user-save")),
			chromedp.WaitVisible(chromedp.CSS("#user-error")),
		)
		p.screenshot(filepath.Join(os.TempDir(), "fnapi-webui-new-user.png"))
		if got := p.text("#user-error"); got != "A user named “viewer” already exists." {
			t.Errorf("creating a second viewer says %q", got)
		}
		p.do(chromedp.Click(chromedp.CSS("#user-dialog [data-close]")), chromedp.WaitNotVisible(chromedp.CSS("#user-dialog")))

		// The role select sets viewer's role, as list-users then answers; the own row has none.
		if got := p.eval(`String(!!document.querySelector('tr[data-user="admin"] .role-select'))`); got != "false" {
			t.Errorf("the signed-in user's row offers to change their own role")
		}
		p.setRole("viewer", "read-only")
		p.poll(`document.getElementById('users-error').textContent === '“viewer” is now Read-only.'`)
		if got := userRole(t, srv, "viewer"); got != "read-only" {
			t.Errorf("list-users answers viewer's role %q after the page set read-only", got)
		}
		p.reshow("#/users", "#users-view")
		p.poll(`document.querySelector('tr[data-user="viewer"] .role-select')?.value === 'read-only'`)
		p.screenshot(filepath.Join(shotDir(t), "users.png"))

		// viewer is no administrator: no Users in the menu, and #/users shows the dashboards.
		p.signOut()
		p.signInAgain("viewer", "viewer-password", "#list-view")
		p.do(chromedp.Click(chromedp.CSS("#account-menu summary")), chromedp.WaitVisible(chromedp.CSS("#keys-link")))
		if got := p.eval(`String(document.getElementById('users-link').hidden && document.getElementById('audit-link').hidden)`); got != "true" {
			t.Errorf("a user who is no administrator sees Users or Audit trail in the menu")
		}
		if got := p.eval(isAdminJS); got != "false" {
			t.Errorf("isAdmin is %s for viewer", got)
		}
		// A tab opened afresh (nothing in session storage) learns the name from whoami.
		p.do(chromedp.Evaluate[chromedp.Void](`sessionStorage.removeItem('user')`), chromedp.Reload())
		p.poll(`document.getElementById('user-name').textContent === 'viewer' && !document.getElementById('list-view').hidden`)
		for _, hash := range []string{"#/users", "#/audit"} {
			p.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`location.hash = %q`, hash)))
			p.poll(`location.hash === '#/' && !document.getElementById('list-view').hidden`)
		}
		p.signOut()
		p.do(chromedp.Evaluate[chromedp.Void](`location.hash = '#/users'`))
		p.signInAgain("admin", adminPassword, "#users-view")
		if got := p.eval(isAdminJS); got != "true" {
			t.Errorf("isAdmin is %s for admin", got)
		}

		// viewer's own key, made by viewer: the administrator sees it and revokes it.
		viewerSession, err := client.Call(context.Background(), newClient(t, srv), authapi.Login, authapi.LoginArgs{User: "viewer", Password: "viewer-password"})
		if err != nil {
			t.Fatal(err)
		}
		viewer := newClient(t, srv, client.WithSession(viewerSession))
		if _, err := client.Call(context.Background(), viewer, authapi.CreateAPIKey, authapi.KeyArgs{Name: "viewer-script"}); err != nil {
			t.Fatal(err)
		}
		p.do(chromedp.Click(chromedp.CSS(`tr[data-user="viewer"] .user-keys`)), chromedp.WaitVisible(chromedp.CSS("#user-keys-dialog")))
		p.poll(`document.querySelector('#user-keys-body tr[data-name="viewer-script"]') !== null`)
		if got := p.text("#user-keys-user"); got != "viewer" {
			t.Errorf("the keys dialog names %q, want viewer", got)
		}
		p.screenshot(filepath.Join(shotDir(t), "user-keys.png"))
		p.do(chromedp.Click(chromedp.CSS(`#user-keys-body tr[data-name="viewer-script"] .revoke-user-key`)))
		p.poll(`!document.getElementById('user-keys-empty').hidden`)
		if got := p.text("#user-keys-error"); got != "“viewer-script” is revoked: programs using it are refused from now on." {
			t.Errorf("after revoking, the dialog says %q", got)
		}
		if keys, err := client.Call(context.Background(), viewer, authapi.ListAPIKeys, authapi.ListKeysArgs{}); err != nil || len(keys) != 0 {
			t.Errorf("viewer's list-api-keys answers %v, %v after the administrator revoked the key", keys, err)
		}
		p.do(chromedp.Click(chromedp.CSS("#user-keys-dialog button[type=submit]")), chromedp.WaitNotVisible(chromedp.CSS("#user-keys-dialog")))

		p.do(
			chromedp.Click(chromedp.CSS(`tr[data-user="viewer"] .delete-user`)),
			chromedp.WaitVisible(chromedp.CSS("#confirm-ok")),
			chromedp.Click(chromedp.CSS("#confirm-ok")),
		)
		p.poll(`!document.querySelector('tr[data-user="viewer"]') && !!document.querySelector('tr[data-user="admin"]')`)
	})

	t.Run("audit", func(t *testing.T) {
		p := &page{t: t, ctx: tab}
		// More events than a page holds: a user whose role changes 60 times.
		s := newSession(t, srv)
		ctx := context.Background()
		if _, err := client.Call(ctx, s, authapi.CreateUser, authapi.CreateUserArgs{User: "audited", Password: "audited-password"}); err != nil {
			t.Fatal(err)
		}
		for i := range 60 {
			role := []authapi.Role{"read-only", "user"}[i%2]
			if _, err := client.Call(ctx, s, authapi.SetRole, authapi.RoleArgs{User: "audited", Role: role}); err != nil {
				t.Fatal(err)
			}
		}
		var events []api.AuditEvent
		if err := s.Call(ctx, "list-audit", map[string]any{"limit": 1000}, &events); err != nil {
			t.Fatal(err)
		}
		if len(events) <= 50 {
			t.Fatalf("list-audit answers %d events, want more than a page", len(events))
		}

		p.openMenu("#audit-link", "#audit-view")
		p.poll(`document.querySelectorAll('#audit-body tr').length === 50 && !document.getElementById('audit-more').hidden`)
		if got, want := p.eval(`document.querySelector('#audit-body tr').dataset.id`), fmt.Sprint(events[0].ID); got != want {
			t.Errorf("the first row is event %s, want the newest, %s", got, want)
		}
		if got := p.text(`#audit-body tr:first-child .details`); got != "role: user, user: audited" {
			t.Errorf("the newest event's details read %q", got)
		}
		p.screenshot(filepath.Join(shotDir(t), "audit.png"))
		p.do(chromedp.Click(chromedp.CSS("#audit-more")))
		p.poll(fmt.Sprintf(`document.querySelectorAll('#audit-body tr').length === %d`, min(len(events), 100)))
		if len(events) < 100 {
			p.poll(`document.getElementById('audit-more').hidden`)
		}
		ids := strings.Fields(p.eval(`[...document.querySelectorAll('#audit-body tr')].map(r => r.dataset.id).join(' ')`))
		for i, id := range ids {
			if id != fmt.Sprint(events[i].ID) {
				t.Fatalf("row %d is event %s, want %d (list-audit's order, no event twice or missing)", i, id, events[i].ID)
			}
		}
		// The page's own changes are there: viewer created, made read-only, its key revoked by the
		// administrator, deleted.
		var actions []string
		for _, e := range events {
			if strings.Contains(string(e.Details), `"viewer"`) {
				actions = append(actions, e.Action)
			}
		}
		if got, want := strings.Join(actions, " "), "delete-user revoke-api-key set-role create-user"; got != want {
			t.Errorf("the audit trail has %q for viewer, want %s", got, want)
		}
		p.colorScheme("dark")
		p.screenshot(filepath.Join(shotDir(t), "audit-dark.png"))
		p.colorScheme("light")
	})

	t.Run("late answers", func(t *testing.T) {
		p := &page{t: t, ctx: tab}
		if got := p.eval(lateAnswersJS); got != "1 0 1 1" {
			t.Errorf("the page took %s (answers of an ended session's calls, then of the current one's) for news of a session ended, want 1 0 1 1", got)
		}
	})

	t.Run("settings", func(t *testing.T) {
		p := &page{t: t, ctx: tab}
		p.openMenu("#settings-link", "#settings-view")
		p.setSetting("retention", "45d")
		p.poll(`document.getElementById('settings-error').textContent === 'Settings saved.'`)
		config := map[string]any{}
		if err := newSession(t, srv).Call(context.Background(), "get-config", nil, &config); err != nil {
			t.Fatal(err)
		}
		if config["retention"] != "45d" {
			t.Errorf("get-config answers retention %v after the page set 45d", config["retention"])
		}

		p.setSetting("default_period", "2 hours")
		p.poll(`document.getElementById('settings-error').textContent.includes('default_period')`)
		msg := p.text("#settings-error")
		if !strings.Contains(msg, "must be a duration") {
			t.Errorf("a bad duration shows %q", msg)
		}
		if got := p.eval(`String(document.getElementById('setting-default_period').classList.contains('invalid'))`); got != "true" {
			t.Errorf("the bad duration's field is not marked")
		}
		p.screenshot(filepath.Join(os.TempDir(), "fnapi-webui-settings.png"))
		if err := newSession(t, srv).Call(context.Background(), "get-config", nil, &config); err != nil {
			t.Fatal(err)
		}
		if config["default_period"] != "1h" {
			t.Errorf("get-config answers default_period %v after a refused change, want 1h", config["default_period"])
		}
	})

	t.Run("password", func(t *testing.T) {
		p := &page{t: t, ctx: tab}
		p.openMenu("#password-link", "#password-view")
		tests := []struct {
			name, old, new, confirm, want string
		}{
			{"confirmation differs", adminPassword, "new-password-1", "new-password-2", "The new password and its confirmation differ."},
			{"wrong password", "not-the-password", "new-password-1", "new-password-1", "The current password is wrong (INVALID-CREDENTIALS)."},
			{"too short", adminPassword, "short", "short", "New password: "},
			{"changed", adminPassword, "new-password-1", "new-password-1", "Password changed."},
			{"changed back", "new-password-1", adminPassword, adminPassword, "Password changed."},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				p := &page{t: t, ctx: tab}
				p.do(
					chromedp.SetValue(chromedp.CSS("#password-old"), tt.old),
					chromedp.SetValue(chromedp.CSS("#password-new"), tt.new),
					chromedp.SetValue(chromedp.CSS("#password-confirm"), tt.confirm),
					chromedp.Evaluate[chromedp.Void](`document.getElementById('password-error').hidden = true`),
					chromedp.Click(chromedp.CSS("#password-save")),
					chromedp.WaitVisible(chromedp.CSS("#password-error")),
				)
				if got := p.text("#password-error"); !strings.HasPrefix(got, tt.want) {
					t.Errorf("the form says %q, want %q", got, tt.want)
				}
				if tt.name == "too short" {
					p.screenshot(filepath.Join(os.TempDir(), "fnapi-webui-password.png"))
				}
			})
		}
	})

	p.signOut()
	p.do(chromedp.Sleep(300 * time.Millisecond)) // let the console catch up
	if msgs := problems(); len(msgs) > 0 {
		t.Errorf("the page logged problems:\n%s", strings.Join(msgs, "\n"))
	}
}

// isAdminJS asks the page's isAdmin (whoami) whether the signed-in user is an administrator.
const isAdminJS = `import('/api.js').then(a => import('/admin.js').then(m => m.isAdmin(new a.API()))).then(String)`

// lateAnswersJS drives an API whose calls answer API-AUTHENTICATION-NEEDED when the test says,
// and reports how often it said the session ended after: a call of the current session
// answered; a call made before a sign-in (or sign-out) answered after it; a second call of a
// session already reported; a call of the new session. Only the first and the last are news.
const lateAnswersJS = `import('/api.js').then(async (m) => {
	let ended = 0;
	const api = new m.API({onAuthNeeded: () => ended++});
	let answer;
	api.message = () => new Promise((resolve) => { answer = () => resolve({type: 'error', error: 'API-AUTHENTICATION-NEEDED'}); });
	const counts = [];
	const step = async (before) => {
		const p = api.call('list-dashboards').catch(() => {});
		before?.();
		answer();
		await p;
		counts.push(ended);
		ended = 0;
	};
	api.sessionChanged();
	await step();
	await step(() => api.sessionChanged());
	const first = api.call('list-dashboards').catch(() => {}), answerFirst = answer;
	const second = api.call('list-dashboards').catch(() => {}), answerSecond = answer;
	answerFirst(); answerSecond();
	await first; await second;
	counts.push(ended);
	ended = 0;
	api.sessionChanged();
	await step();
	return counts.join(' ');
})`
