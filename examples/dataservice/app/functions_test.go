package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/examples/dataservice/api"
)

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
