package webui_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// openTab opens a tab with a browser context of its own (no cookies of other tabs), closed at
// the end of the test, and watches its console (watchConsole).
func openTab(t *testing.T, browser context.Context) (*page, func() []string) {
	tab, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	return &page{t: t, ctx: tab}, watchConsole(tab)
}

// page runs the steps of a test in a tab, failing the test on an error.
type page struct {
	t   *testing.T
	ctx context.Context
}

func (p *page) do(steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		p.t.Fatalf("browser: %v", err)
	}
}

// eval evaluates a JavaScript expression that gives a string, awaiting a promise.
func (p *page) eval(js string) string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("browser: evaluating %s: %v", js, err)
	}
	return v
}

// poll waits until the expression is true.
func (p *page) poll(js string) {
	p.t.Helper()
	p.do(chromedp.Poll[chromedp.Void](js, chromedp.WithPollingInterval(100*time.Millisecond),
		chromedp.WithPollingTimeout(25*time.Second)))
}

func (p *page) text(sel string) string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		p.t.Fatalf("browser: text of %s: %v", sel, err)
	}
	return v
}

// signIn opens url, the dashboards' list, and signs in as the administrator.
func (p *page) signIn(url string) {
	p.t.Helper()
	p.signInAs(url, "admin", adminPassword, "#list-view")
}

// signInAs opens url and signs in as user on the sign-in form it shows, then waits for view.
func (p *page) signInAs(url, user, password, view string) {
	p.t.Helper()
	p.do(
		chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.CSS("#login-form")),
		chromedp.SetValue(chromedp.CSS("#login-user"), user),
		chromedp.SendKeys(chromedp.CSS("#login-password"), password),
		chromedp.Click(chromedp.CSS("#login-submit")),
		chromedp.WaitVisible(chromedp.CSS(view)),
	)
	// The session is in the HttpOnly cookie, out of the page's reach.
	if c := p.eval(`document.cookie`); c != "" {
		p.t.Errorf("the page can read cookies %q", c)
	}
}

func (p *page) screenshot(path string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		p.t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		p.t.Fatal(err)
	}
	p.t.Logf("screenshot: %s", path)
}

// watchConsole collects the tab's console errors and exceptions (a Content-Security-Policy
// violation is one); the returned function gives those seen so far.
func watchConsole(ctx context.Context) func() []string {
	var mu sync.Mutex
	var msgs []string
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			// The API's 4xx answers (401 before sign-in, 400 for a bad query) are expected.
			expected := strings.Contains(m.Text, "the server responded with a status of 4")
			if !expected && (m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException || m.Type == chromedp.ConsoleWarning) {
				mu.Lock()
				msgs = append(msgs, fmt.Sprintf("%s: %s (%s:%d)", m.Type, m.Text, m.URL, m.Line))
				mu.Unlock()
			}
		}
	}()
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), msgs...)
	}
}

// goTo goes to a route of the page (a URL fragment), as a link does.
func (p *page) goTo(hash string) {
	p.t.Helper()
	p.eval(fmt.Sprintf(`(location.hash = %q, '')`, hash))
}

// shotDir is where screenshots go: $WEBUI_SCREENSHOTS when set (kept), else a temporary folder.
func shotDir(t *testing.T) string {
	if d := os.Getenv("WEBUI_SCREENSHOTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}
