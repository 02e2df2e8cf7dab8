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
)

// TestAlertRuleOwners checks issue 45's finding 8 through the API: a plain user can neither
// rewrite, add a webhook to, silence nor delete an administrator's rule; a rule's webhook URLs
// (credentials for Slack, Teams, Discord) are answered only to its owner and administrators,
// others see the host; an administrator's change leaves the rule its owner's.
func TestAlertRuleOwners(t *testing.T) {
	t.Parallel()
	s := start(t)
	ctx := context.Background()
	admin := s.http(t, client.WithAPIKey(s.key))
	for _, u := range []authapi.CreateUserArgs{{User: "rita", Password: "rita's password", Role: authapi.RoleReadOnly},
		{User: "bob", Password: "bob's password"}, {User: "eve", Password: "eve's password"}} {
		if _, err := client.Call(ctx, admin, authapi.CreateUser, u); err != nil {
			t.Fatal(err)
		}
	}
	login := func(user, password string) *client.Client {
		tok, err := client.Call(ctx, s.http(t), authapi.Login, authapi.LoginArgs{User: user, Password: password})
		if err != nil {
			t.Fatal(err)
		}
		return s.http(t, client.WithSession(tok))
	}
	rita, bob, eve := login("rita", "rita's password"), login("bob", "bob's password"), login("eve", "eve's password")
	const adminHook, bobHook = "https://93.184.216.34/services/T0/B0/admin-token", "https://93.184.216.34:8443/bob-token?k=v"
	query := "traffic BY server.ip HAVING traffic > 1000000000000 SINCE @now-300"
	ar, err := client.Call(ctx, admin, api.CreateAlertRule, api.CreateAlertRuleArgs{Name: "core links", Query: query,
		Notify: []api.AlertChannel{{Webhook: adminHook, Secret: "s1"}, {Email: "noc@example.com"}}})
	if err != nil {
		t.Fatal(err)
	}
	br, err := client.Call(ctx, bob, api.CreateAlertRule, api.CreateAlertRuleArgs{Name: "bob's", Query: query,
		Notify: []api.AlertChannel{{Webhook: bobHook, Secret: "s2"}}})
	if err != nil {
		t.Fatal(err)
	}
	if ar.Owner != "admin" || br.Owner != "bob" || br.Notify[0].Webhook != bobHook {
		t.Fatalf("created %+v and %+v", ar, br)
	}

	// Who sees which URL: the owner and administrators all of it, others the host.
	hooks := func(c *client.Client) string {
		t.Helper()
		rules, err := client.Call(ctx, c, api.ListAlertRules, struct{}{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rules {
			for _, ch := range r.Notify {
				out = append(out, r.Owner+" "+ch.Webhook+ch.Email)
			}
		}
		return strings.Join(out, ", ")
	}
	for _, c := range []struct {
		who  string
		c    *client.Client
		want string
	}{
		{"admin", admin, "admin " + adminHook + ", admin noc@example.com, bob " + bobHook},
		{"bob", bob, "admin https://93.184.216.34/…, admin noc@example.com, bob " + bobHook},
		{"eve", eve, "admin https://93.184.216.34/…, admin noc@example.com, bob https://93.184.216.34:8443/…"},
		{"rita (read-only)", rita, "admin https://93.184.216.34/…, admin noc@example.com, bob https://93.184.216.34:8443/…"},
	} {
		if got := hooks(c.c); got != c.want {
			t.Errorf("%s sees %s\nwant %s", c.who, got, c.want)
		}
	}

	// A plain user changes nothing of another's rule.
	name, until := "pwned", time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		what string
		call func() error
	}{
		{"rename", func() error {
			_, err := client.Call(ctx, bob, api.UpdateAlertRule, api.UpdateAlertRuleArgs{ID: ar.ID, Name: &name})
			return err
		}},
		{"add a webhook", func() error {
			_, err := client.Call(ctx, bob, api.UpdateAlertRule, api.UpdateAlertRuleArgs{ID: ar.ID,
				Notify: []api.AlertChannel{{Webhook: adminHook}, {Email: "noc@example.com"}, {Webhook: bobHook}}})
			return err
		}},
		{"silence", func() error {
			_, err := client.Call(ctx, bob, api.SilenceAlert, api.SilenceAlertArgs{Rule: ar.ID, Until: until})
			return err
		}},
		{"delete", func() error {
			_, err := client.Call(ctx, bob, api.DeleteAlertRule, api.IDArgs{ID: ar.ID})
			return err
		}},
		{"eve renames bob's", func() error {
			_, err := client.Call(ctx, eve, api.UpdateAlertRule, api.UpdateAlertRuleArgs{ID: br.ID, Name: &name})
			return err
		}},
	} {
		err := c.call()
		raw, _ := json.Marshal(err)
		if code(err) != apierr.PermissionDenied.Code() || !strings.Contains(string(raw), `"role":"administrator"`) {
			t.Errorf("%s: %v (%s), want PERMISSION-DENIED", c.what, err, raw)
		}
	}
	if got := hooks(admin); got != "admin "+adminHook+", admin noc@example.com, bob "+bobHook {
		t.Fatalf("after the refused calls the rules are %s", got)
	}
	rules, _ := client.Call(ctx, admin, api.ListAlertRules, struct{}{})
	if len(rules) != 2 || rules[0].Name != "core links" || rules[1].Name != "bob's" {
		t.Fatalf("after the refused calls: %+v", rules)
	}

	// The owner changes theirs; an administrator anyone's, and the rule stays its owner's.
	for _, c := range []*client.Client{bob, admin, bob} {
		r, err := client.Call(ctx, c, api.UpdateAlertRule, api.UpdateAlertRuleArgs{ID: br.ID, Name: &name})
		if err != nil || r.Owner != "bob" || r.Notify[0].Webhook != bobHook {
			t.Fatalf("update of bob's rule: %+v, %v", r, err)
		}
	}
	if _, err := client.Call(ctx, bob, api.SilenceAlert, api.SilenceAlertArgs{Rule: br.ID, Until: until}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Call(ctx, admin, api.SilenceAlert, api.SilenceAlertArgs{Rule: br.ID, Until: until}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Call(ctx, admin, api.DeleteAlertRule, api.IDArgs{ID: br.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Call(ctx, bob, api.DeleteAlertRule, api.IDArgs{ID: br.ID}); code(err) != apierr.NotFound.Code() {
		t.Fatalf("deleting a deleted rule: %v, want NOT-FOUND", err)
	}
}
