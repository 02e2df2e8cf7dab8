package app_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/internal/testutil"
)

// callAlerts calls each alert function once, for TestEveryFunction.
func callAlerts(t *testing.T, call func(fn string, args, out any)) {
	t.Helper()
	// The record first: the rule's first round, at once, must see it (the next is a minute
	// later).
	call("ingest", map[string]any{"records": []any{record(time.Now().Unix()-60, "10.1.1.1", "10.77.0.1", 22, 1, 2)}}, nil)
	var r api.AlertRule
	call("create-alert-rule", map[string]any{"name": "busy", "query": "traffic BY server.ip WHERE server.ip = 10.77.0.1 HAVING traffic > 0"}, &r)
	// The evaluator checks every second; the rule is due at once.
	var alerts []api.Alert
	testutil.Eventually(t, "a firing alert", func() bool {
		call("list-alerts", map[string]any{"state": "firing"}, &alerts)
		return len(alerts) > 0
	})
	if len(alerts) != 1 || string(alerts[0].Group) != `["10.77.0.1"]` {
		t.Fatalf("list-alerts: %+v", alerts)
	}
	call("update-alert-rule", map[string]any{"id": r.ID, "interval": "30s"}, nil)
	call("list-alert-rules", nil, nil)
	call("alert-history", map[string]any{"rule": r.ID}, nil)
	call("silence-alert", map[string]any{"rule": r.ID, "until": "2030-01-01T00:00:00Z"}, nil)
	call("acknowledge-alert", map[string]any{"rule": r.ID, "group": []any{"10.77.0.1"}}, nil)
	call("delete-alert-rule", map[string]any{"id": r.ID}, nil)
}

// TestAlertRules checks the alert functions' rules: who may do what, the audit trail (without
// the channels' secrets), and bad rules refused with clear errors, nothing stored.
func TestAlertRules(t *testing.T) {
	t.Parallel()
	s := start(t)
	ctx := context.Background()
	admin := s.http(t, client.WithAPIKey(s.key))
	if _, err := client.Call(ctx, admin, authapi.CreateUser, authapi.CreateUserArgs{User: "rita", Password: "rita's password", Role: authapi.RoleReadOnly}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Call(ctx, admin, authapi.CreateUser, authapi.CreateUserArgs{User: "bob", Password: "bob's password"}); err != nil {
		t.Fatal(err)
	}
	login := func(user, password string) *client.Client {
		tok, err := client.Call(ctx, s.http(t), authapi.Login, authapi.LoginArgs{User: user, Password: password})
		if err != nil {
			t.Fatal(err)
		}
		return s.http(t, client.WithSession(tok))
	}
	rita, bob := login("rita", "rita's password"), login("bob", "bob's password")

	r, err := client.Call(ctx, bob, api.CreateAlertRule, api.CreateAlertRuleArgs{Name: "busy",
		Query: "traffic BY server.ip HAVING traffic > 1000000000000 SINCE @now-300", For: "2m", Severity: "critical",
		Labels: map[string]string{"team": "net"},
		Notify: []api.AlertChannel{{Webhook: "https://93.184.216.34/hook", Secret: "never shown"}, {Email: "noc@example.com"}}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Interval != "1m" || r.For != "2m" || r.Notify[0].Secret != "" || r.Notify[1].Email != "noc@example.com" {
		t.Fatalf("created %+v", r)
	}
	rules, err := client.Call(ctx, rita, api.ListAlertRules, struct{}{})
	if err != nil || len(rules) != 1 || rules[0].ID != r.ID {
		t.Fatalf("read-only list-alert-rules: %+v, %v", rules, err)
	}
	raw, _ := json.Marshal(rules)
	if strings.Contains(string(raw), "never shown") {
		t.Fatalf("a secret answered: %s", raw)
	}
	if _, err := client.Call(ctx, rita, api.CreateAlertRule, api.CreateAlertRuleArgs{Name: "x", Query: "traffic HAVING traffic > 1"}); code(err) != apierr.PermissionDenied.Code() {
		t.Fatalf("read-only create-alert-rule: %v", err)
	}
	if _, err := client.Call(ctx, rita, api.DeleteAlertRule, api.IDArgs{ID: r.ID}); code(err) != apierr.PermissionDenied.Code() {
		t.Fatalf("read-only delete-alert-rule: %v", err)
	}
	// An update without the secret keeps it (the console never sees it).
	name := "busier"
	if _, err := client.Call(ctx, admin, api.UpdateAlertRule, api.UpdateAlertRuleArgs{ID: r.ID, Name: &name,
		Notify: []api.AlertChannel{{Webhook: "https://93.184.216.34/hook"}}}); err != nil {
		t.Fatal(err)
	}

	name = "busier\r\nState: resolved"
	if _, err := client.Call(ctx, bob, api.UpdateAlertRule, api.UpdateAlertRuleArgs{ID: r.ID, Name: &name}); code(err) != apierr.InvalidArgument.Code() {
		t.Fatalf("update to a name with CR LF: %v", err)
	}

	for _, c := range []struct {
		name string
		args api.CreateAlertRuleArgs
		code apierr.Code
		want string
	}{
		{"syntax", api.CreateAlertRuleArgs{Name: "x", Query: "traffic BY server.ip HAVING trafic > 1"}, api.QuerySyntax.Code(), `"position":28`},
		{"no condition", api.CreateAlertRuleArgs{Name: "x", Query: "traffic BY server.ip"}, apierr.InvalidArgument.Code(), "HAVING"},
		{"two statements", api.CreateAlertRuleArgs{Name: "x", Query: "traffic HAVING traffic > 1; packets"}, apierr.InvalidArgument.Code(), "one statement"},
		{"interval", api.CreateAlertRuleArgs{Name: "x", Query: "traffic HAVING traffic > 1", Interval: "5s"}, apierr.InvalidArgument.Code(), "between 10s"},
		{"not https", api.CreateAlertRuleArgs{Name: "x", Query: "traffic HAVING traffic > 1", Notify: []api.AlertChannel{{Webhook: "http://93.184.216.34/"}}}, apierr.InvalidArgument.Code(), "https"},
		{"itself", api.CreateAlertRuleArgs{Name: "x", Query: "traffic HAVING traffic > 1", Notify: []api.AlertChannel{{Webhook: s.srv.URL + "/api"}}}, apierr.InvalidArgument.Code(), "not a public address"},
		{"private", api.CreateAlertRuleArgs{Name: "x", Query: "traffic HAVING traffic > 1", Notify: []api.AlertChannel{{Webhook: "https://192.168.1.1/"}}}, apierr.InvalidArgument.Code(), "not a public address"},
		{"e-mail", api.CreateAlertRuleArgs{Name: "x", Query: "traffic HAVING traffic > 1", Notify: []api.AlertChannel{{Email: "Bob <b@x"}}}, apierr.InvalidArgument.Code(), "e-mail"},
		// Names, severities and labels are checked as other names (issue 45, finding 9).
		{"name CR LF", api.CreateAlertRuleArgs{Name: "busy\r\nState: resolved", Query: "traffic HAVING traffic > 1"}, apierr.InvalidArgument.Code(), "control characters (U+000D"},
		{"name bidi", api.CreateAlertRuleArgs{Name: "busy \u202egnp.exe", Query: "traffic HAVING traffic > 1"}, apierr.InvalidArgument.Code(), "bidirectional"},
		{"name blank", api.CreateAlertRuleArgs{Name: "\u200b", Query: "traffic HAVING traffic > 1"}, apierr.InvalidArgument.Code(), "visible"},
		{"name too long", api.CreateAlertRuleArgs{Name: strings.Repeat("n", 201), Query: "traffic HAVING traffic > 1"}, apierr.InvalidArgument.Code(), "200"},
		{"severity", api.CreateAlertRuleArgs{Name: "x", Severity: "critical\n", Query: "traffic HAVING traffic > 1"}, apierr.InvalidArgument.Code(), `"name":"severity"`},
		{"label name", api.CreateAlertRuleArgs{Name: "x", Labels: map[string]string{"team\r\n": "net"}, Query: "traffic HAVING traffic > 1"}, apierr.InvalidArgument.Code(), "control characters"},
		{"label value", api.CreateAlertRuleArgs{Name: "x", Labels: map[string]string{"team": "\u2067net"}, Query: "traffic HAVING traffic > 1"}, apierr.InvalidArgument.Code(), "bidirectional"},
	} {
		_, err := client.Call(ctx, bob, api.CreateAlertRule, c.args)
		raw, _ := json.Marshal(err)
		if code(err) != c.code || !strings.Contains(string(raw)+err.Error(), c.want) {
			t.Errorf("%s: %v (%s), want %s with %q", c.name, err, raw, c.code, c.want)
		}
	}
	// Too many rules for one user: LIMIT-REACHED at the 101st (the first is still bob's:
	// an administrator's update leaves a rule its owner's).
	for i := range 100 {
		_, err := client.Call(ctx, bob, api.CreateAlertRule, api.CreateAlertRuleArgs{Name: "r", Query: "traffic HAVING traffic > 1000000000000000"})
		if i < 99 && err != nil {
			t.Fatalf("rule %d: %v", i+2, err)
		}
		if i == 99 && code(err) != api.LimitReached.Code() {
			t.Fatalf("rule 101: %v, want LIMIT-REACHED", err)
		}
	}
	if rules, _ := client.Call(ctx, rita, api.ListAlertRules, struct{}{}); len(rules) != 100 {
		t.Fatalf("%d rules stored, want 100", len(rules))
	}

	var events []api.AuditEvent
	if events, err = client.Call(ctx, admin, api.ListAudit, api.ListAuditArgs{Limit: 1000}); err != nil {
		t.Fatal(err)
	}
	actions := map[string]int{}
	for _, e := range events {
		actions[e.Action]++
		if strings.Contains(string(e.Details), "never shown") || strings.Contains(string(e.Details), "93.184") {
			t.Fatalf("the trail holds a channel: %s", e.Details)
		}
	}
	if actions["create-alert-rule"] != 100 || actions["update-alert-rule"] != 1 {
		t.Fatalf("audit trail: %v", actions)
	}
}
