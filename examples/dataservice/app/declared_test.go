package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/examples/dataservice/api"
)

// TestDeclaredFunctions calls every function of package api through its declaration, over
// HTTPS and over the WebSocket, each call at the version its declaration appeared in: the
// types a Go client compiles against are the ones the service answers.
func TestDeclaredFunctions(t *testing.T) {
	t.Parallel()
	s := start(t)
	opts := []client.Option{client.WithAPIKey(s.key), client.WithDeclaredVersions()}
	callers := map[string]client.Caller{"https": s.http(t, opts...), "websocket": s.ws(t, "/api/ws", opts...)}
	base := time.Now().Add(-10 * time.Minute).Unix()
	for name, c := range callers {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			t0 := base - map[string]int64{"https": 0, "websocket": 7200}[name]
			testDeclaredQuery(t, ctx, c, t0)
			testDeclaredDashboards(t, ctx, c)
			testDeclaredConfig(t, ctx, c)
			if st, err := client.Call(ctx, c, api.CollectorStatus, decl.None{}); err != nil || st.Enabled || st.Exporters == nil || st.Listen == nil {
				t.Errorf("collector-status without a collector = %+v, %v", st, err)
			}
			testDeclaredIdentity(t, ctx, c)
		})
	}
}

func testDeclaredQuery(t *testing.T, ctx context.Context, c client.Caller, t0 int64) {
	var recs []json.RawMessage
	for _, r := range []any{
		record(t0, "10.0.0.1", "93.184.216.34", 443, 100, 1000),
		record(t0+10, "10.0.0.2", "93.184.216.34", 443, 50, 500),
	} {
		b, _ := json.Marshal(r)
		recs = append(recs, b)
	}
	ing, err := client.Call(ctx, c, api.Ingest, api.IngestArgs{Records: recs})
	if err != nil || ing.Ingested != 2 {
		t.Fatalf("ingest = %+v, %v", ing, err)
	}
	period := fmt.Sprintf(" SINCE %d UNTIL %d", t0, t0+60)
	var last api.Chunk
	for chunk, err := range client.Stream(ctx, c, api.Query, api.QueryArgs{Expr: "traffic, client.traffic / 0 BY server.port" + period}) {
		if err != nil {
			t.Fatal(err)
		}
		last = chunk
	}
	if len(last.Result) != 1 || last.Progress != 1 {
		t.Fatalf("last chunk %+v", last)
	}
	r := last.Result[0]
	if len(r.Data) != 1 || r.Data[0].Keys[0] != 443.0 || r.Data[0].Values[0] != 1650 ||
		!math.IsNaN(r.Data[0].Values[1]) || r.Meta.AccumulatedTime != 60 || !r.Meta.Sorted {
		t.Fatalf("query answered %+v", r)
	}
	for _, err := range client.Stream(ctx, c, api.Query, api.QueryArgs{Expr: "traffic BY clent.ip"}) {
		var e *apierr.Error
		if !errors.Is(err, apierr.New(api.QuerySyntax)) || !errors.As(err, &e) || e.Attr("position") != 11.0 {
			t.Fatalf("a syntax error = %v, want QUERY-SYNTAX at 11", err)
		}
	}
	fields, err := client.Call(ctx, c, api.ListFields, decl.None{}) // since 1.1
	if err != nil || len(fields) == 0 || fields[0].Name == "" || fields[0].Kind != "metric" {
		t.Fatalf("list-fields = %+v, %v", fields, err)
	}
}

func testDeclaredDashboards(t *testing.T, ctx context.Context, c client.Caller) {
	d, err := client.Call(ctx, c, api.CreateDashboard, api.CreateDashboardArgs{Title: "Edge"})
	if err != nil || d.ID == "" || d.Title != "Edge" || d.Created.IsZero() {
		t.Fatalf("create-dashboard = %+v, %v", d, err)
	}
	title := "Edge routers"
	if d, err = client.Call(ctx, c, api.UpdateDashboard, api.UpdateDashboardArgs{ID: d.ID, Title: &title}); err != nil || d.Title != title {
		t.Fatalf("update-dashboard = %+v, %v", d, err)
	}
	w, err := client.Call(ctx, c, api.CreateWidget, api.CreateWidgetArgs{Dashboard: d.ID, Title: "Top", Kind: "table",
		Queries: []string{"traffic BY client.ip TOP 10"}, Options: json.RawMessage(`{"rows":10}`)})
	if err != nil || w.Dashboard != d.ID || string(w.Options) != `{"rows":10}` {
		t.Fatalf("create-widget = %+v, %v", w, err)
	}
	_, err = client.Call(ctx, c, api.UpdateWidget, api.UpdateWidgetArgs{ID: w.ID, Queries: []string{"traffic", "traffic BY"}})
	var e *apierr.Error
	if !errors.Is(err, apierr.New(api.QuerySyntax)) || !errors.As(err, &e) || e.Attr("index") != 1.0 {
		t.Fatalf("update-widget with a bad query = %v, want QUERY-SYNTAX at index 1", err)
	}
	kind := "number"
	if w, err = client.Call(ctx, c, api.UpdateWidget, api.UpdateWidgetArgs{ID: w.ID, Kind: &kind}); err != nil || w.Kind != kind || w.Title != "Top" {
		t.Fatalf("update-widget = %+v, %v", w, err)
	}
	if d, err = client.Call(ctx, c, api.GetDashboard, api.IDArgs{ID: d.ID}); err != nil || len(d.Widgets) != 1 || d.Widgets[0].ID != w.ID {
		t.Fatalf("get-dashboard = %+v, %v", d, err)
	}
	list, err := client.Call(ctx, c, api.ListDashboards, decl.None{})
	if err != nil || !containsDashboard(list, d.ID) {
		t.Fatalf("list-dashboards = %+v, %v", list, err)
	}
	if ok, err := client.Call(ctx, c, api.DeleteWidget, api.IDArgs{ID: w.ID}); err != nil || !ok {
		t.Fatalf("delete-widget = %v, %v", ok, err)
	}
	if ok, err := client.Call(ctx, c, api.DeleteDashboard, api.IDArgs{ID: d.ID}); err != nil || !ok {
		t.Fatalf("delete-dashboard = %v, %v", ok, err)
	}
	if _, err := client.Call(ctx, c, api.GetDashboard, api.IDArgs{ID: d.ID}); !errors.Is(err, apierr.New(apierr.NotFound)) {
		t.Fatalf("a deleted dashboard = %v, want NOT-FOUND", err)
	}
}

func containsDashboard(list []api.DashboardSummary, id string) bool {
	for _, d := range list {
		if d.ID == id {
			return true
		}
	}
	return false
}

func testDeclaredConfig(t *testing.T, ctx context.Context, c client.Caller) {
	cfg, err := client.Call(ctx, c, api.SetConfig, api.SetConfigArgs{Values: map[string]json.RawMessage{"retention": []byte(`"60d"`)}})
	if err != nil || string(cfg["retention"]) != `"60d"` {
		t.Fatalf("set-config = %s, %v", cfg["retention"], err)
	}
	if cfg, err = client.Call(ctx, c, api.GetConfig, decl.None{}); err != nil || string(cfg["retention"]) != `"60d"` {
		t.Fatalf("get-config = %s, %v", cfg["retention"], err)
	}
	_, err = client.Call(ctx, c, api.SetConfig, api.SetConfigArgs{Values: map[string]json.RawMessage{"colour": []byte(`"red"`)}})
	var e *apierr.Error
	if !errors.As(err, &e) || e.Code() != apierr.InvalidArgument.Code() || e.Attr("name") != "colour" {
		t.Fatalf("an unknown key = %v, want INVALID-ARGUMENT naming it", err)
	}
	if _, err := client.Call(ctx, c, api.SetConfig, api.SetConfigArgs{Values: map[string]json.RawMessage{"retention": []byte("null")}}); err != nil {
		t.Fatal(err)
	}
}

// testDeclaredIdentity calls the identity functions through authapi's declarations, and those
// the service serves from a later version through api's, at their declared versions.
func testDeclaredIdentity(t *testing.T, ctx context.Context, c client.Caller) {
	if me, err := client.Call(ctx, c, api.Whoami, decl.None{}); err != nil || me.User != "admin" || me.Token != "key" || me.KeyName != "tests" {
		t.Errorf("whoami = %+v, %v", me, err)
	}
	users, err := client.Call(ctx, c, authapi.ListUsers, decl.None{})
	if err != nil || len(users) != 1 || users[0].Role != authapi.RoleAdmin {
		t.Errorf("list-users = %+v, %v", users, err)
	}
	if _, err := client.Call(ctx, c, api.SetRole, authapi.RoleArgs{User: "admin", Role: authapi.RoleUser}); !errors.Is(err, apierr.New(apierr.InvalidArgument)) {
		t.Errorf("set-role of oneself = %v, want INVALID-ARGUMENT", err)
	}
	if keys, err := client.Call(ctx, c, authapi.ListAPIKeys, authapi.ListKeysArgs{}); err != nil || len(keys) != 1 || keys[0].Name != "tests" {
		t.Errorf("list-api-keys = %+v, %v", keys, err)
	}
	if events, err := client.Call(ctx, c, api.ListAudit, api.ListAuditArgs{}); err != nil || events == nil {
		t.Errorf("list-audit = %+v, %v", events, err)
	}
}
