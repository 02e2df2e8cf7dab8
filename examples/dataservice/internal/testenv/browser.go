package testenv

import (
	"context"
	"os/exec"
	"testing"

	"github.com/chromedp/chromedp"
)

// Chromium finds the browser the console's tests drive: it skips the test without one, and
// fails it under CI.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if CI() {
		t.Fatal("no Chromium on this machine: .ci/install-extras installs it")
	}
	t.Skip("no Chromium on this machine (apt-get install chromium): the browser test is skipped")
	return ""
}

// Browser starts Chromium at path, headless, with a fresh profile and a 1440x1000 window, and
// returns its context; it stops when the test ends. Certificates are not checked: the
// service's own is self-signed.
func Browser(t testing.TB, path string) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox, // as root in a container
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.IgnoreCertErrors,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1440, 1000),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // starts the browser; no timeout on this first call
		t.Fatalf("starting %s: %v", path, err)
	}
	return ctx
}
