package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/demo"
	"github.com/fnapi/fnapi/internal/testutil"
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

// TestFunctions runs the service's functions end to end over HTTPS and over the WebSocket.
func TestFunctions(t *testing.T) {
	t.Parallel()
	s := start(t)
	callers := map[string]caller{
		"https":     s.http(t, client.WithAPIKey(s.key)),
		"websocket": s.ws(t, "/api/ws", client.WithAPIKey(s.key)),
	}
	base := time.Now().Add(-10 * time.Minute).Unix()
	for name, c := range callers {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			// Each transport ingests into its own hour so that the two do not see each other.
			t0 := base - map[string]int64{"https": 0, "websocket": 7200}[name]
			testIngestAndQuery(t, ctx, c, t0)
			testDashboards(t, ctx, c)
			testConfig(t, ctx, c)
		})
	}
}

func record(t int64, client, server string, port int, up, down int) map[string]any {
	return map[string]any{
		"time": t, "protocol": "tcp",
		"client": map[string]any{"ip": client, "port": 50000, "bytes": up, "packets": 1},
		"server": map[string]any{"ip": server, "port": port, "bytes": down, "packets": 2},
	}
}

type result struct {
	Data [][2][]any `json:"data"`
	Meta struct {
		AccumulatedTime float64 `json:"accumulated_time"`
		Sorted          bool    `json:"sorted"`
	} `json:"meta"`
}

func testIngestAndQuery(t *testing.T, ctx context.Context, c caller, t0 int64) {
	recs := []any{
		record(t0, "10.0.0.1", "93.184.216.34", 443, 100, 1000),
		record(t0+10, "10.0.0.2", "93.184.216.34", 443, 50, 500),
		record(t0+20, "10.0.0.1", "10.0.0.53", 53, 10, 20),
	}
	var raw []json.RawMessage
	for _, r := range recs {
		b, _ := json.Marshal(r)
		raw = append(raw, b)
	}
	if ing, err := client.Call(ctx, c, api.Ingest, api.IngestArgs{Records: raw}); err != nil || ing.Ingested != 3 {
		t.Fatalf("ingest = %+v, %v", ing, err)
	}
	period := fmt.Sprintf(" SINCE %d UNTIL %d", t0, t0+60)
	var got []result
	expr := "traffic, records BY application" + period + "; client.traffic / traffic" + period
	if err := c.Call(ctx, "query", map[string]any{"expr": expr}, &got); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	want := `[{"data":[[["https"],[1650,2]],[["dns"],[30,1]]],"meta":{"accumulated_time":60,"sorted":true}},` +
		`{"data":[[[],[0.09523809523809523]]],"meta":{"accumulated_time":60,"sorted":true}}]`
	if string(b) != want {
		t.Fatalf("query answered\n%s\nwant\n%s", b, want)
	}

	// A bad record: nothing of the batch is stored, and the error names it.
	bad := []any{record(t0, "10.0.0.9", "10.0.0.53", 53, 1, 1), record(t0, "10.0.0.999", "10.0.0.53", 53, 1, 1)}
	err := c.Call(ctx, "ingest", map[string]any{"records": bad}, nil)
	var e *apierr.Error
	if !errors.As(err, &e) || e.Code() != apierr.InvalidArgument.Code() || fmt.Sprint(e.Attr("index")) != "1" || e.Attr("field") != "client.ip" {
		t.Fatalf("bad ingest: %v", err)
	}
	var count []result
	if err := c.Call(ctx, "query", map[string]any{"expr": "records" + period}, &count); err != nil {
		t.Fatal(err)
	}
	if n := count[0].Data[0][1][0]; n != 3.0 {
		t.Fatalf("after a failed batch, %v records; want 3 (nothing half-written)", n)
	}

	err = c.Call(ctx, "query", map[string]any{"expr": "traffic BY clent.ip"}, nil)
	if !errors.As(err, &e) || e.Code() != "QUERY-SYNTAX" || fmt.Sprint(e.Attr("position")) != "11" {
		t.Fatalf("syntax error: %v", err)
	}

	// Streamed, the last chunk's result is the non-streaming answer.
	var last json.RawMessage
	chunks := 0
	for chunk, err := range c.Stream(ctx, "query", map[string]any{"expr": "traffic BY server.port" + period}) {
		if err != nil {
			t.Fatal(err)
		}
		var ch struct {
			Result   json.RawMessage `json:"result"`
			Progress float64         `json:"progress"`
		}
		if err := json.Unmarshal(chunk, &ch); err != nil {
			t.Fatal(err)
		}
		last, chunks = ch.Result, chunks+1
	}
	var whole json.RawMessage
	if err := c.Call(ctx, "query", map[string]any{"expr": "traffic BY server.port" + period}, &whole); err != nil {
		t.Fatal(err)
	}
	if chunks == 0 || !sameData(t, last, whole) {
		t.Fatalf("%d chunks; last %s, non-streaming %s", chunks, last, whole)
	}
}

// sameData compares two query answers but for meta.elapsed.
func sameData(t *testing.T, a, b json.RawMessage) bool {
	var ra, rb []result
	if json.Unmarshal(a, &ra) != nil || json.Unmarshal(b, &rb) != nil {
		return false
	}
	ja, _ := json.Marshal(ra)
	jb, _ := json.Marshal(rb)
	return string(ja) == string(jb)
}

func testDashboards(t *testing.T, ctx context.Context, c caller) {
	d, err := client.Call(ctx, c, api.CreateDashboard, api.CreateDashboardArgs{Title: "Overview"})
	if err != nil || d.ID == "" {
		t.Fatalf("create-dashboard: %+v %v", d, err)
	}
	if _, err := client.Call(ctx, c, api.CreateWidget, api.CreateWidgetArgs{
		Dashboard: d.ID, Title: "Top talkers", Kind: "table", Queries: []string{"traffic BY client.ip TOP 10"}}); err != nil {
		t.Fatal(err)
	}
	// Bad input goes through the dynamic client: a declared call cannot send it.
	args := map[string]any{"dashboard": d.ID, "title": "Top talkers", "kind": "table", "queries": []string{"traffic BY client.ip TOP 10"}}
	args["kind"] = "gauge"
	if err := c.Call(ctx, "create-widget", args, nil); code(err) != apierr.InvalidArgument.Code() {
		t.Fatalf("unknown kind: %v", err)
	}
	args["kind"], args["queries"] = "number", []string{"traffic", "traffic BY"}
	err = c.Call(ctx, "create-widget", args, nil)
	var e *apierr.Error
	if !errors.As(err, &e) || e.Code() != "QUERY-SYNTAX" || fmt.Sprint(e.Attr("index")) != "1" {
		t.Fatalf("bad widget query: %v", err)
	}
	if d, err = client.Call(ctx, c, api.GetDashboard, api.IDArgs{ID: d.ID}); err != nil || len(d.Widgets) != 1 || d.Widgets[0].Title != "Top talkers" {
		t.Fatalf("get-dashboard: %+v %v", d, err)
	}
	if _, err := client.Call(ctx, c, api.DeleteDashboard, api.IDArgs{ID: d.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Call(ctx, c, api.GetDashboard, api.IDArgs{ID: d.ID}); !errors.Is(err, apierr.New(apierr.NotFound)) {
		t.Fatalf("deleted dashboard: %v", err)
	}
	if err := c.Call(ctx, "create-dashboard", map[string]any{}, nil); code(err) != apierr.TooFewArguments.Code() {
		t.Fatalf("no title: %v", err)
	}
}

func testConfig(t *testing.T, ctx context.Context, c caller) {
	period := func(v string) api.SetConfigArgs {
		return api.SetConfigArgs{Values: map[string]json.RawMessage{"default_period": json.RawMessage(`"` + v + `"`)}}
	}
	if _, err := client.Call(ctx, c, api.SetConfig, period("2h")); err != nil {
		t.Fatal(err)
	}
	if cfg, err := client.Call(ctx, c, api.GetConfig, decl.None{}); err != nil || string(cfg["default_period"]) != `"2h"` {
		t.Fatalf("get-config = %v, %v", cfg, err)
	}
	var got []result
	if err := c.Call(ctx, "query", map[string]any{"expr": "traffic"}, &got); err != nil || got[0].Meta.AccumulatedTime != 7200 {
		t.Fatalf("default_period 2h: query covers %v s, %v", got, err)
	}
	err := c.Call(ctx, "set-config", map[string]any{"values": map[string]any{"default_period": "1h", "colour": "red"}}, nil)
	var e *apierr.Error
	if !errors.As(err, &e) || e.Code() != apierr.InvalidArgument.Code() || e.Attr("name") != "colour" {
		t.Fatalf("unknown key: %v", err)
	}
	if cfg, err := client.Call(ctx, c, api.GetConfig, decl.None{}); err != nil || string(cfg["default_period"]) != `"2h"` {
		t.Fatalf("a refused set-config changed the configuration: %v", cfg)
	}
	if _, err := client.Call(ctx, c, api.SetConfig, period("1h")); err != nil {
		t.Fatal(err)
	}
}

// TestAuthenticationAndVersions checks what an anonymous caller meets, and the two API
// versions.
func TestAuthenticationAndVersions(t *testing.T) {
	t.Parallel()
	s := start(t)
	ctx := context.Background()
	anon := s.http(t)
	err := anon.Call(ctx, "query", map[string]any{"expr": "traffic"}, nil)
	var e *apierr.Error
	if !errors.As(err, &e) || e.Code() != apierr.AuthenticationNeeded.Code() || e.Attr("path") != "query" {
		t.Fatalf("anonymous query: %v", err)
	}
	if _, err := client.Call(ctx, anon, authapi.Login, authapi.LoginArgs{User: "admin", Password: "wrong"}); !errors.Is(err, apierr.New(apierr.InvalidCredentials)) {
		t.Fatalf("bad login: %v", err)
	}
	withKey := s.http(t, client.WithAPIKey(s.key))
	if _, err := client.Call(ctx, withKey, authapi.CreateAPIKey, authapi.KeyArgs{Name: "second"}); !errors.Is(err, apierr.New(apierr.AuthenticationNeeded)) {
		t.Fatalf("create-api-key with a key: %v", err)
	}
	fields12, err := client.Call(ctx, withKey, api.ListFields12, decl.None{})
	if err != nil || !slices.ContainsFunc(fields12, func(f api.Field) bool { return f.Name == "exporter" && f.Kind == "key" && f.Since == "1.2" }) {
		t.Fatalf("list-fields at 1.2 lacks the exporter key: %v %v", fields12, err)
	}
	if !slices.ContainsFunc(fields12, func(f api.Field) bool { return f.Name == "p95(m)" && f.Kind == "function" && f.Since == "1.3" }) {
		t.Fatalf("list-fields lacks the p95 function: %v", fields12)
	}
	// The versions below are named on purpose, through the dynamic client.
	var fields []struct{ Name, Kind, Since string }
	v11 := s.http(t, client.WithAPIKey(s.key), client.WithVersion("1.1"))
	if err := v11.Call(ctx, "list-fields", nil, &fields); err != nil || len(fields) == 0 ||
		slices.ContainsFunc(fields, func(f struct{ Name, Kind, Since string }) bool { return f.Name == "exporter" }) {
		t.Fatalf("list-fields at 1.1: %v %v", fields, err)
	}
	v10 := s.http(t, client.WithAPIKey(s.key), client.WithVersion("1.0"))
	if err := v10.Call(ctx, "list-fields", nil, nil); code(err) != apierr.UnknownFunction.Code() {
		t.Fatalf("list-fields at 1.0: %v", err)
	}
	var doc struct {
		Version   string
		Versions  []string
		Functions []struct{ Name, Auth, Role string }
	}
	if err := v10.Call(ctx, "doc", nil, &doc); err != nil || doc.Version != "1.0" || strings.Join(doc.Versions, ",") != "1.0,1.1,1.2,1.3" {
		t.Fatalf("doc at 1.0: %+v %v", doc, err)
	}
	var latest struct {
		Functions []struct{ Name, Description string }
	}
	if err := withKey.Call(ctx, "doc", nil, &latest); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(latest.Functions, func(f struct{ Name, Description string }) bool {
		return f.Name == "query" && strings.Contains(f.Description, "exporter")
	}) {
		t.Errorf("doc does not name the exporter key in query's description: %+v", latest.Functions)
	}
	auths, roles := map[string]string{}, map[string]string{}
	for _, f := range doc.Functions {
		auths[f.Name], roles[f.Name] = f.Auth, f.Role
	}
	for fn, want := range map[string]string{"echo": "", "query": "read-only", "create-widget": "user", "set-config": "administrator", "delete-user": "administrator", "change-password": "read-only"} {
		if roles[fn] != want {
			t.Errorf("doc: %s role %q, want %q", fn, roles[fn], want)
		}
	}
	for fn, want := range map[string]string{"login": "none", "query": "token", "create-api-key": "session", "create-widget": "token", "echo": "none"} {
		if auths[fn] != want {
			t.Errorf("doc: %s auth %q, want %q", fn, auths[fn], want)
		}
	}
}

// TestDemoOverview checks that a -demo service starts with a dashboard whose queries are valid,
// and only once.
func TestDemoOverview(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := app.Config{DataDir: t.TempDir(), Demo: true}
	titles := func(c *client.Client) map[string]string {
		list, err := client.Call(ctx, c, api.ListDashboards, decl.None{})
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]string{}
		for _, d := range list {
			ids[d.Title] = d.ID
			if !strings.Contains(d.Description, "-demo") {
				t.Errorf("dashboard %q: description %q does not say it is the demo's", d.Title, d.Description)
			}
		}
		return ids
	}
	c, stop := openAsAdmin(t, cfg)
	ids := titles(c)
	if len(ids) != 2 || ids["Network overview"] == "" || ids["Application performance"] == "" {
		t.Fatalf("dashboards %v, want the overview and Application performance", ids)
	}
	for _, id := range ids {
		d, err := client.Call(ctx, c, api.GetDashboard, api.IDArgs{ID: id})
		if err != nil || len(d.Widgets) == 0 {
			t.Fatalf("dashboard: %+v, %v", d, err)
		}
		answerWidgets(t, c, d, false)
	}
	rules, err := client.Call(ctx, c, api.ListAlertRules, decl.None{})
	if err != nil || len(rules) != 3 {
		t.Fatalf("alert rules: %+v, %v", rules, err)
	}
	for _, r := range rules {
		if r.Owner != "admin" || r.Labels["demo"] != "true" {
			t.Errorf("rule %q: owner %q, labels %v; want the administrator's, labelled demo", r.Name, r.Owner, r.Labels)
		}
	}
	// What the operator deletes stays deleted; the rest is not made twice.
	if _, err := client.Call(ctx, c, api.DeleteDashboard, api.IDArgs{ID: ids["Application performance"]}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Call(ctx, c, api.DeleteAlertRule, api.IDArgs{ID: rules[0].ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Call(ctx, c, api.DeleteZone, api.NameArgs{Name: "Branches/Lyon"}); err != nil {
		t.Fatal(err)
	}
	stop()
	c, stop = openAsAdmin(t, cfg)
	defer stop()
	if ids := titles(c); len(ids) != 1 || ids["Network overview"] == "" {
		t.Errorf("after a restart, dashboards %v, want the overview alone", ids)
	}
	if rules, err := client.Call(ctx, c, api.ListAlertRules, decl.None{}); err != nil || len(rules) != 2 {
		t.Errorf("after a restart, %d alert rules (%v), want 2", len(rules), err)
	}
	zones, err := client.Call(ctx, c, api.ListZones, decl.None{})
	if err != nil || len(zones) != len(demo.Zones())-1 || slices.ContainsFunc(zones, func(z api.Zone) bool { return z.Name == "Branches/Lyon" }) {
		t.Errorf("after a restart, zones %+v (%v), want the demo's but Branches/Lyon", zones, err)
	}
}

// openAsAdmin opens the service of cfg (cheap password hashing, the tests' administrator) and
// serves it over real TLS; it returns a client signed in as the administrator, and stop, which
// closes the service (a test may open the same data directory again).
func openAsAdmin(t *testing.T, cfg app.Config) (c *client.Client, stop func()) {
	t.Helper()
	_, c, stop = serve(t, cfg)
	return c, stop
}

// answerWidgets runs every statement of d's widgets through c, and fails t for an error or,
// with nonEmpty, an empty answer.
func answerWidgets(t *testing.T, c *client.Client, d api.Dashboard, nonEmpty bool) {
	t.Helper()
	for _, w := range d.Widgets {
		for _, q := range w.Queries {
			n := 0
			for _, err := range client.Stream(context.Background(), c, api.Query, api.QueryArgs{Expr: q}) {
				if err != nil {
					t.Errorf("widget %q: query %q: %v", w.Title, q, err)
				}
				n++
			}
			if nonEmpty && n == 0 {
				t.Errorf("widget %q: query %q answered nothing", w.Title, q)
			}
		}
	}
}

// TestRetention checks that lowering the retention deletes older records at once.
func TestRetention(t *testing.T) {
	t.Parallel()
	s := start(t)
	ctx := context.Background()
	c := s.http(t, client.WithAPIKey(s.key))
	old := time.Now().Add(-3 * time.Hour).Unix()
	recs := []any{record(old, "10.2.0.1", "10.2.0.2", 22, 1, 1), record(time.Now().Unix()-60, "10.2.0.1", "10.2.0.2", 22, 1, 1)}
	if err := c.Call(ctx, "ingest", map[string]any{"records": recs}, nil); err != nil {
		t.Fatal(err)
	}
	count := func() float64 {
		var res []result
		if err := c.Call(ctx, "query", map[string]any{"expr": "records SINCE @now-86400"}, &res); err != nil {
			t.Fatal(err)
		}
		return res[0].Data[0][1][0].(float64)
	}
	if n := count(); n != 2 {
		t.Fatalf("%v records before", n)
	}
	if err := c.Call(ctx, "set-config", map[string]any{"values": map[string]any{"retention": "2h"}}, nil); err != nil {
		t.Fatal(err)
	}
	testutil.Until(t, testutil.Wait, "retention 2h to apply", func() error {
		if n := count(); n != 1 {
			return fmt.Errorf("still %v records", n)
		}
		return nil
	})
}

// TestCallRateLimit checks that a caller calling much faster than the limit (200 calls a second,
// bursts of 400) is told to wait.
func TestCallRateLimit(t *testing.T) {
	// Serial: a rate limit under test, which a loaded machine slows the calls under.
	s := start(t)
	c := s.http(t, client.WithAPIKey(s.key))
	for i := range 2000 {
		err := c.Call(context.Background(), "get-api-version", nil, nil)
		if err == nil {
			continue
		}
		var e *apierr.Error
		if !errors.As(err, &e) || e.Code() != apierr.RateLimited.Code() || e.Attr("retry_after") == nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if i < 400 {
			t.Fatalf("limited after %d calls, within the burst of 400", i)
		}
		return
	}
	t.Fatal("2000 calls in a row were never limited")
}

// TestPerfDashboard checks that a service with the capture probe starts with the "Application
// performance" dashboard, whose statements answer; that a restart does not make it again, and
// that once deleted it stays deleted.
func TestPerfDashboard(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	pcap := filepath.Join(dir, "empty.pcap") // a pcap header and no packet
	hdr := []byte{0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 1, 0, 0, 0}
	if err := os.WriteFile(pcap, hdr, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := app.Config{DataDir: dir, CaptureFile: pcap}
	for start := range 3 {
		c, stop := openAsAdmin(t, cfg)
		list, err := client.Call(ctx, c, api.ListDashboards, decl.None{})
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case start == 2 && len(list) != 0:
			t.Fatalf("start %d: dashboards %+v, want none (it was deleted)", start, list)
		case start < 2 && (len(list) != 1 || list[0].Title != "Application performance"):
			t.Fatalf("start %d: dashboards %+v, want one Application performance", start, list)
		}
		if start == 1 {
			if _, err := client.Call(ctx, c, api.DeleteDashboard, api.IDArgs{ID: list[0].ID}); err != nil {
				t.Fatal(err)
			}
		}
		if start == 0 {
			d, err := client.Call(ctx, c, api.GetDashboard, api.IDArgs{ID: list[0].ID})
			if err != nil || len(d.Widgets) != 4 {
				t.Fatalf("dashboard: %+v, %v", d, err)
			}
			answerWidgets(t, c, d, true)
		}
		stop()
	}
}
