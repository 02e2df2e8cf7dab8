package statetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/state/statedb"
)

func roundTrip(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)

	d := must[state.Dashboard](t)(s.CreateDashboard(ctx, state.Dashboard{Title: "Traffic", Description: "all of it"}))
	if d.ID == "" || d.Title != "Traffic" || d.Description != "all of it" || d.Created.IsZero() || !d.Created.Equal(d.Updated) {
		t.Fatalf("created %+v", d)
	}
	if d.Widgets == nil || len(d.Widgets) != 0 {
		t.Errorf("new dashboard's widgets %#v, want empty", d.Widgets)
	}
	w := must[state.Widget](t)(s.CreateWidget(ctx, state.Widget{Dashboard: d.ID, Title: "Top clients",
		Kind: "table", Queries: []string{"traffic BY client.ip TOP 10"}}))
	if w.ID == "" || w.Dashboard != d.ID || string(w.Options) != "{}" {
		t.Fatalf("created %+v", w)
	}
	w2 := must[state.Widget](t)(s.CreateWidget(ctx, state.Widget{Dashboard: d.ID, Title: "Volume",
		Kind: "timeseries", Queries: []string{"traffic BY time(60)", "packets BY time(60)"},
		Options: json.RawMessage(`{"stacked":true,"colors":["#f00"]}`)}))

	got := must[state.Dashboard](t)(s.Dashboard(ctx, d.ID))
	if len(got.Widgets) != 2 || !reflect.DeepEqual(got.Widgets[0], w) || !reflect.DeepEqual(got.Widgets[1], w2) {
		t.Fatalf("dashboard widgets %+v, want %+v and %+v", got.Widgets, w, w2)
	}
	if !got.Updated.After(d.Updated) {
		t.Errorf("adding widgets left the dashboard's updated time at %v", got.Updated)
	}

	up := must[state.Dashboard](t)(s.UpdateDashboard(ctx, d.ID, func(d *state.Dashboard) error {
		d.Title = "Traffic (all)"
		return nil
	}))
	if up.Title != "Traffic (all)" || up.Description != "all of it" || len(up.Widgets) != 2 || !up.Created.Equal(d.Created) {
		t.Fatalf("updated %+v", up)
	}

	other := must[state.Dashboard](t)(s.CreateDashboard(ctx, state.Dashboard{Title: "Other"}))
	moved := must[state.Widget](t)(s.UpdateWidget(ctx, w2.ID, func(w *state.Widget) error {
		w.Dashboard, w.Kind, w.Queries = other.ID, "bar", []string{"records"}
		return nil
	}))
	if moved.Dashboard != other.ID || moved.Kind != "bar" || !reflect.DeepEqual(moved.Queries, []string{"records"}) ||
		string(moved.Options) != string(w2.Options) || !moved.Created.Equal(w2.Created) || !moved.Updated.After(w2.Updated) {
		t.Fatalf("moved %+v", moved)
	}
	if got := must[state.Widget](t)(s.Widget(ctx, w2.ID)); !reflect.DeepEqual(got, moved) {
		t.Errorf("Widget = %+v, want %+v", got, moved)
	}

	list := must[[]state.Dashboard](t)(s.Dashboards(ctx))
	if len(list) != 2 || list[0].ID != d.ID || list[1].ID != other.ID || list[0].Widgets != nil {
		t.Fatalf("list %+v", list)
	}

	if err := s.DeleteWidget(ctx, w2.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteDashboard(ctx, d.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Widget(ctx, w.ID); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("widget of a deleted dashboard: %v, want not found", err)
	}
	list = must[[]state.Dashboard](t)(s.Dashboards(ctx))
	if len(list) != 1 || list[0].ID != other.ID {
		t.Fatalf("list after delete %+v", list)
	}

	cfg := must[map[string]string](t)(s.UpdateConfig(ctx, func(v map[string]string) error {
		v["retention"], v["default_period"] = "30d", "90s"
		return nil
	}))
	cfg2 := must[map[string]string](t)(s.UpdateConfig(ctx, func(v map[string]string) error {
		delete(v, "retention")
		v["default_period"] = "2h"
		return nil
	}))
	if !reflect.DeepEqual(cfg, map[string]string{"retention": "30d", "default_period": "90s"}) ||
		!reflect.DeepEqual(cfg2, map[string]string{"default_period": "2h"}) {
		t.Fatalf("config %v then %v", cfg, cfg2)
	}
	if got := must[map[string]string](t)(s.Config(ctx)); !reflect.DeepEqual(got, cfg2) {
		t.Errorf("Config = %v, want %v", got, cfg2)
	}
}

func notFound(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	d := must[state.Dashboard](t)(s.CreateDashboard(ctx, state.Dashboard{Title: "d"}))
	w := must[state.Widget](t)(s.CreateWidget(ctx, state.Widget{Dashboard: d.ID, Title: "w", Kind: "number", Queries: []string{"records"}}))
	const missing = "00000000-0000-4000-8000-000000000000"
	nop := func(*state.Dashboard) error { return nil }
	tests := []struct {
		name string
		kind string
		call func() error
	}{
		{"get dashboard", "dashboard", func() error { _, err := s.Dashboard(ctx, missing); return err }},
		{"update dashboard", "dashboard", func() error { _, err := s.UpdateDashboard(ctx, missing, nop); return err }},
		{"delete dashboard", "dashboard", func() error { return s.DeleteDashboard(ctx, missing) }},
		{"get widget", "widget", func() error { _, err := s.Widget(ctx, missing); return err }},
		{"update widget", "widget", func() error {
			_, err := s.UpdateWidget(ctx, missing, func(*state.Widget) error { return nil })
			return err
		}},
		{"delete widget", "widget", func() error { return s.DeleteWidget(ctx, missing) }},
		{"create widget on missing dashboard", "dashboard", func() error {
			_, err := s.CreateWidget(ctx, state.Widget{Dashboard: missing, Title: "w", Kind: "number", Queries: []string{"records"}})
			return err
		}},
		{"move widget to missing dashboard", "dashboard", func() error {
			_, err := s.UpdateWidget(ctx, w.ID, func(w *state.Widget) error { w.Dashboard = missing; return nil })
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			var nf *state.NotFoundError
			if !errors.Is(err, state.ErrNotFound) || !errors.As(err, &nf) || nf.Kind != tt.kind || nf.ID != missing {
				t.Fatalf("got %v, want %s %s not found", err, tt.kind, missing)
			}
		})
	}
}

func allOrNothing(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t, statedb.WithLimits(state.Limits{DashboardsPerUser: 2, WidgetsPerDashboard: 2, ConfigValues: 3}))
	d := must[state.Dashboard](t)(s.CreateDashboard(ctx, state.Dashboard{Title: "full"}))
	d2 := must[state.Dashboard](t)(s.CreateDashboard(ctx, state.Dashboard{Title: "other"}))
	for i := range 2 {
		must[state.Widget](t)(s.CreateWidget(ctx, state.Widget{Dashboard: d.ID, Title: strconv.Itoa(i), Kind: "number", Queries: []string{"records"}}))
	}
	w := must[state.Widget](t)(s.CreateWidget(ctx, state.Widget{Dashboard: d2.ID, Title: "w", Kind: "pie", Queries: []string{"records BY protocol"}}))
	must[map[string]string](t)(s.UpdateConfig(ctx, func(v map[string]string) error { v["a"] = "1"; return nil }))
	refused := errors.New("refused by the change function")

	tests := []struct {
		name string
		call func() error
		want error
	}{
		{"config change function fails after setting keys", func() error {
			_, err := s.UpdateConfig(ctx, func(v map[string]string) error {
				v["a"], v["b"] = "2", "3"
				delete(v, "a")
				return refused
			})
			return err
		}, refused},
		{"config write fails after earlier writes", func() error {
			_, err := s.UpdateConfig(ctx, func(v map[string]string) error {
				// The schema refuses a key over 100 characters: the other writes of this
				// transaction must not remain.
				v["a"], v["b"], v[strings.Repeat("k", 101)] = "2", "3", "4"
				return nil
			})
			return err
		}, nil},
		{"config over its limit", func() error {
			_, err := s.UpdateConfig(ctx, func(v map[string]string) error {
				v["b"], v["c"], v["d"] = "1", "1", "1"
				return nil
			})
			return err
		}, state.ErrLimit},
		{"dashboard change function fails", func() error {
			_, err := s.UpdateDashboard(ctx, d.ID, func(d *state.Dashboard) error { d.Title = "changed"; return refused })
			return err
		}, refused},
		{"widget change function fails", func() error {
			_, err := s.UpdateWidget(ctx, w.ID, func(w *state.Widget) error { w.Kind = "table"; return refused })
			return err
		}, refused},
		{"widget moved to a full dashboard", func() error {
			_, err := s.UpdateWidget(ctx, w.ID, func(w *state.Widget) error { w.Dashboard, w.Title = d.ID, "moved"; return nil })
			return err
		}, state.ErrLimit},
		{"widget on a full dashboard", func() error {
			_, err := s.CreateWidget(ctx, state.Widget{Dashboard: d.ID, Title: "third", Kind: "number", Queries: []string{"records"}})
			return err
		}, state.ErrLimit},
		{"too many dashboards", func() error {
			_, err := s.CreateDashboard(ctx, state.Dashboard{Title: "third"})
			return err
		}, state.ErrLimit},
		{"cancelled context", func() error {
			cctx, cancel := context.WithCancel(ctx)
			cancel()
			_, err := s.CreateDashboard(cctx, state.Dashboard{Title: "never"})
			return err
		}, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := Snapshot(t, s)
			err := tt.call()
			if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Fatalf("got %v, want an error matching %v", err, tt.want)
			}
			if after := Snapshot(t, s); !reflect.DeepEqual(before, after) {
				t.Errorf("a failed write changed the store:\nbefore %+v\nafter  %+v", before, after)
			}
		})
	}
}

func concurrentUpdates(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	const n = 20
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			_, err := s.UpdateConfig(ctx, func(v map[string]string) error {
				c, _ := strconv.Atoi(v["count"])
				v["count"] = strconv.Itoa(c + 1)
				return nil
			})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := must[map[string]string](t)(s.Config(ctx)); got["count"] != strconv.Itoa(n) {
		t.Fatalf("count = %s after %d concurrent increments: updates were lost", got["count"], n)
	}
}

// oneInstant checks that dashboards and widgets made in the same millisecond (here with a
// stopped clock) list in the order they were made, as those made at other times do.
func oneInstant(t *testing.T, open Opener) {
	ctx := context.Background()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s := open(t, statedb.WithClock(func() time.Time { return at }))
	var dashboards []string
	for i := range 8 {
		d := must[state.Dashboard](t)(s.CreateDashboard(ctx, state.Dashboard{Title: fmt.Sprint("d", i)}))
		dashboards = append(dashboards, d.ID)
	}
	var listed []string
	for _, d := range must[[]state.Dashboard](t)(s.Dashboards(ctx)) {
		listed = append(listed, d.ID)
	}
	if !slices.Equal(listed, dashboards) {
		t.Errorf("dashboards listed %v, made %v", listed, dashboards)
	}
	var widgets []string
	for i := range 8 {
		w := must[state.Widget](t)(s.CreateWidget(ctx, state.Widget{Dashboard: dashboards[0], Title: fmt.Sprint("w", i),
			Kind: "number", Queries: []string{"traffic"}}))
		widgets = append(widgets, w.ID)
	}
	listed = nil
	for _, w := range must[state.Dashboard](t)(s.Dashboard(ctx, dashboards[0])).Widgets {
		listed = append(listed, w.ID)
	}
	if !slices.Equal(listed, widgets) {
		t.Errorf("widgets listed %v, made %v", listed, widgets)
	}
}

// quotas checks the bounds per owner: dashboards, and bytes of text across dashboards and
// widgets, each owner's own, so that one owner's use never refuses another's.
func quotas(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t, statedb.WithLimits(state.Limits{DashboardsPerUser: 2, BytesPerUser: 1000}))
	var le *state.LimitError
	ann := must[state.Dashboard](t)(s.CreateDashboard(ctx, state.Dashboard{Title: "a1", Owner: "ann"}))
	must[state.Dashboard](t)(s.CreateDashboard(ctx, state.Dashboard{Title: "a2", Owner: "ann"}))
	if _, err := s.CreateDashboard(ctx, state.Dashboard{Title: "a3", Owner: "ann"}); !errors.As(err, &le) ||
		le.What != "dashboards" || le.Limit != 2 {
		t.Fatalf("ann's third dashboard of 2: %v", err)
	}
	bob := must[state.Dashboard](t)(s.CreateDashboard(ctx, state.Dashboard{Title: "b1", Owner: "bob"}))
	if got := must[state.Dashboard](t)(s.Dashboard(ctx, bob.ID)); got.Owner != "bob" {
		t.Fatalf("owner read back %q", got.Owner)
	}
	big := []string{strings.Repeat("x", 900)}
	w := must[state.Widget](t)(s.CreateWidget(ctx, state.Widget{Dashboard: bob.ID, Title: "w", Kind: "table", Queries: big, Owner: "bob"}))
	if w.Owner != "bob" {
		t.Fatalf("widget owner %q", w.Owner)
	}
	if _, err := s.CreateWidget(ctx, state.Widget{Dashboard: bob.ID, Title: "w2", Kind: "table", Queries: big, Owner: "bob"}); !errors.As(err, &le) ||
		le.What != "bytes" || le.Limit != 1000 {
		t.Fatalf("bob's widgets past 1000 bytes: %v", err)
	}
	if _, err := s.UpdateDashboard(ctx, bob.ID, func(d *state.Dashboard) error {
		d.Description = strings.Repeat("d", 200)
		return nil
	}); !errors.As(err, &le) || le.What != "bytes" {
		t.Fatalf("bob's description past 1000 bytes: %v", err)
	}
	// Bob's use refuses nothing of ann's, on bob's dashboard too.
	aw := must[state.Widget](t)(s.CreateWidget(ctx, state.Widget{Dashboard: bob.ID, Title: "aw", Kind: "table", Queries: big, Owner: "ann"}))
	// Rewriting a widget charges its bytes to the writer the change function names.
	if _, err := s.UpdateWidget(ctx, aw.ID, func(w *state.Widget) error { w.Owner = "bob"; return nil }); !errors.As(err, &le) {
		t.Fatalf("moving 900 bytes to bob, who has 900: %v", err)
	}
	must[state.Widget](t)(s.UpdateWidget(ctx, w.ID, func(w *state.Widget) error { w.Queries = []string{"records"}; return nil }))
	must[state.Widget](t)(s.UpdateWidget(ctx, aw.ID, func(w *state.Widget) error { w.Owner = "bob"; return nil }))
	must[state.Dashboard](t)(s.UpdateDashboard(ctx, ann.ID, func(d *state.Dashboard) error { d.Description = "fits"; return nil }))
}
