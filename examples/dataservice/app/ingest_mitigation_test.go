package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/bgp"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// TestIngestWhileMitigating checks that ingest is for administrators while alert rules may
// announce routes (BGP on, mitigation_zones set): else a user's made-up flood to any address
// of the zones would make an administrator's blackhole rule announce it. Before the zones are
// set, and for an administrator, ingest works.
func TestIngestWhileMitigating(t *testing.T) {
	t.Parallel()
	port := testenv.FreePort(t)
	s, _ := startWith(t, app.Config{BGP: bgp.Config{Listen: fmt.Sprintf("127.0.0.1:%d", port), AS: 64500,
		Peers: []netip.Prefix{netip.MustParsePrefix("127.0.0.11/32")}}})
	ctx := context.Background()
	admin := s.http(t, client.WithAPIKey(s.key))
	if _, err := client.Call(ctx, admin, authapi.CreateUser, authapi.CreateUserArgs{User: "mallory", Password: "mallory's password"}); err != nil {
		t.Fatal(err)
	}
	tok, err := client.Call(ctx, s.http(t), authapi.Login, authapi.LoginArgs{User: "mallory", Password: "mallory's password"})
	if err != nil {
		t.Fatal(err)
	}
	mallory := s.http(t, client.WithSession(tok))
	b, _ := json.Marshal(record(time.Now().Unix()-5, "192.0.2.99", "198.51.100.42", 443, 0, 100000))
	ingest := func(c *client.Client) error {
		_, err := client.Call(ctx, c, api.Ingest, api.IngestArgs{Records: []json.RawMessage{b}})
		return err
	}
	if err := ingest(mallory); err != nil {
		t.Fatalf("a user's ingest without mitigation zones: %v", err)
	}
	if _, err := client.Call(ctx, admin, api.SetConfig, api.SetConfigArgs{Values: map[string]json.RawMessage{
		"mitigation_zones": json.RawMessage(`["Customers"]`)}}); err != nil {
		t.Fatal(err)
	}
	var ae *apierr.Error
	if err := ingest(mallory); !errors.As(err, &ae) || ae.Code() != apierr.PermissionDenied.Code() {
		t.Errorf("a user's ingest with mitigation zones: %v, want PERMISSION-DENIED", err)
	}
	if err := ingest(admin); err != nil {
		t.Errorf("an administrator's ingest with mitigation zones: %v", err)
	}
}
