package app_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/demo"
	"github.com/fnapi/fnapi/examples/dataservice/inlet"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/internal/testutil"
)

// TestDemoNodes starts two nodes of one service with -demo on a fresh PostgreSQL database: the
// node holding the demo's lease makes its dashboards, zones, applications and rules once, and
// both nodes see them.
func TestDemoNodes(t *testing.T) {
	// Serial: two nodes backfilling the demo load the machine for the tests beside them.
	pg := testenv.StartPostgres(t)
	url := pg.Database(t)
	var nodes []*service
	for range 2 {
		s, _ := startWith(t, app.Config{Postgres: url, Auth: []auth.Option{auth.WithCacheTTL(time.Hour)}, Inlet: inlet.Configuration{Demo: true}})
		nodes = append(nodes, s)
	}
	ctx := context.Background()
	for i, s := range nodes {
		c := s.http(t, client.WithAPIKey(s.key))
		testutil.Until(t, testutil.Wait, fmt.Sprintf("node %d: the demo's context, dashboards and rules", i), func() error {
			ds, err := client.Call(ctx, c, api.ListDashboards, decl.None{})
			if err != nil || len(ds) != 2 {
				return fmt.Errorf("dashboards %+v, %v", ds, err)
			}
			rules, err := client.Call(ctx, c, api.ListAlertRules, decl.None{})
			if err != nil || len(rules) != 3 {
				return fmt.Errorf("%d rules, %v", len(rules), err)
			}
			zones, err := client.Call(ctx, c, api.ListZones, decl.None{})
			if err != nil || len(zones) != len(demo.Zones()) {
				return fmt.Errorf("zones %+v, %v", zones, err)
			}
			return nil
		})
	}
}
