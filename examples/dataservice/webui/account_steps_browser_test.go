package webui_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/client"
)

// openMenu opens the account menu, follows its link and waits for the view.
func (p *page) openMenu(link, view string) {
	p.t.Helper()
	p.do(
		chromedp.Click(chromedp.CSS("#account-menu summary")),
		chromedp.WaitVisible(chromedp.CSS(link)),
		chromedp.Click(chromedp.CSS(link)),
		chromedp.WaitVisible(chromedp.CSS(view)),
	)
	p.poll(`!document.getElementById('account-menu').open`)
}

// reshow shows a view again, by way of the dashboard list, to read it afresh.
func (p *page) reshow(hash, view string) {
	p.t.Helper()
	p.do(
		chromedp.Evaluate[chromedp.Void](`location.hash = '#/'`),
		chromedp.WaitVisible(chromedp.CSS("#list-view")),
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`location.hash = %q`, hash)),
		chromedp.WaitVisible(chromedp.CSS(view)),
	)
}

func (p *page) createUser(name, password string) {
	p.t.Helper()
	p.do(
		chromedp.Click(chromedp.CSS("#new-user")),
		chromedp.WaitVisible(chromedp.CSS("#user-name-input")),
		chromedp.SendKeys(chromedp.CSS("#user-name-input"), name),
		chromedp.SendKeys(chromedp.CSS("#user-password-input"), password),
		chromedp.Click(chromedp.CSS("#user-save")),
		chromedp.WaitNotVisible(chromedp.CSS("#user-dialog")),
	)
	p.poll(fmt.Sprintf(`document.querySelector('tr[data-user=%q] .role-select')?.value === 'user'`, name))
}

// setRole picks a user's role in its select.
func (p *page) setRole(user, role string) {
	p.t.Helper()
	sel := fmt.Sprintf(`tr[data-user=%q] .role-select`, user)
	p.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(s => { s.value = %q; s.dispatchEvent(new Event('change')); })(document.querySelector(%q))`, role, sel)))
}

// userRole asks list-users from Go for a user's role.
func userRole(t *testing.T, srv *httptest.Server, user string) string {
	t.Helper()
	var users []authapi.UserInfo
	if err := newSession(t, srv).Call(context.Background(), "list-users", nil, &users); err != nil {
		t.Fatal(err)
	}
	for _, u := range users {
		if u.User == user {
			return string(u.Role)
		}
	}
	return ""
}

// setSetting types a value in a setting's field and saves the form.
func (p *page) setSetting(key, value string) {
	p.t.Helper()
	sel := "#setting-" + key
	p.do(
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).value = ''`, sel)), // SetValue refuses ""
		chromedp.SendKeys(chromedp.CSS(sel), value),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('settings-error').textContent = ''`),
		chromedp.Click(chromedp.CSS("#settings-save")),
	)
}

// signInAgain signs in on the sign-in form the page shows, and waits for the view.
func (p *page) signInAgain(user, password, view string) {
	p.t.Helper()
	p.do(
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.getElementById('login-user').value = %q`, user)),
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.getElementById('login-password').value = %q`, password)),
		chromedp.Click(chromedp.CSS("#login-submit")),
		chromedp.WaitVisible(chromedp.CSS(view)),
	)
}

// newClient returns a Go client of the test service's API.
func newClient(t *testing.T, srv *httptest.Server, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(srv.URL+"/api", append([]client.Option{client.WithHTTPClient(srv.Client())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// newSession signs in as the administrator from Go and returns a client with the session.
func newSession(t *testing.T, srv *httptest.Server) *client.Client {
	t.Helper()
	session, err := client.Call(context.Background(), newClient(t, srv), authapi.Login, authapi.LoginArgs{User: "admin", Password: adminPassword})
	if err != nil {
		t.Fatalf("login: %v", err)
	}
	return newClient(t, srv, client.WithSession(session))
}

// sessionOf signs in as user from Go and returns a client with the session.
func sessionOf(t *testing.T, srv *httptest.Server, user, password string) *client.Client {
	t.Helper()
	session, err := client.Call(context.Background(), newClient(t, srv), authapi.Login, authapi.LoginArgs{User: user, Password: password})
	if err != nil {
		t.Fatalf("login as %s: %v", user, err)
	}
	return newClient(t, srv, client.WithSession(session))
}
