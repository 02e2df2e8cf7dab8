package main

import (
	"context"
	"errors"
	"net/url"
	"testing"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/dataservice/api"
)

// TestCommandLineWebhookOwnAddress runs the service with -webhook-allow covering every
// address: a rule whose webhook is the service's own HTTPS or metrics address (by address or
// by name) is refused all the same, and one to another port of the same host is accepted.
func TestCommandLineWebhookOwnAddress(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	p := startService(t, "-addr", "127.0.0.1:0", "-data", data, "-metrics", "127.0.0.1:0",
		"-webhook-allow", "0.0.0.0/0,::/0")
	ctx := context.Background()
	c := adminClient(t, p, data)
	https, err := url.Parse(p.url)
	if err != nil {
		t.Fatal(err)
	}
	metrics, err := url.Parse(p.metrics)
	if err != nil || p.metrics == "" {
		t.Fatalf("metrics URL %q: %v", p.metrics, err)
	}
	create := func(hook string) error {
		_, err := client.Call(ctx, c, api.CreateAlertRule, api.CreateAlertRuleArgs{Name: "self",
			Query: "traffic BY server.ip HAVING traffic > 1e12 SINCE @now-300", Notify: []api.AlertChannel{{Webhook: hook}}})
		return err
	}
	for _, hook := range []string{"https://" + https.Host + "/api/echo", "https://localhost:" + https.Port() + "/",
		"https://[::ffff:127.0.0.1]:" + https.Port() + "/", "https://127.0.0.9:" + https.Port() + "/",
		"https://" + metrics.Host + "/metrics"} {
		if err := create(hook); !errors.Is(err, apierr.New(apierr.InvalidArgument)) {
			t.Errorf("a webhook to %s, the service itself: %v; want INVALID-ARGUMENT", hook, err)
		}
	}
	if err := create("https://127.0.0.1:1/hook"); err != nil {
		t.Fatalf("a webhook to another port of an allowed address: %v", err)
	}
}
