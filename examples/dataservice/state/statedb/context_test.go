package statedb_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/state/statedb"
	"github.com/jackc/pgx/v5"
)

// contextSuite checks a ContextStore: set, replace, list by name, delete, a check that
// refuses leaves nothing written, a missing name is NotFound.
func contextSuite(t *testing.T, st state.ContextStore) {
	ctx := context.Background()
	if _, err := st.SetZone(ctx, state.Zone{Name: "HQ", Networks: []string{"10.0.0.0/8"}}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SetZone(ctx, state.Zone{Name: "DMZ", Networks: []string{"192.0.2.0/24"}}, nil); err != nil {
		t.Fatal(err)
	}
	z, err := st.SetZone(ctx, state.Zone{Name: "HQ", Networks: []string{"10.0.0.0/8", "2001:db8::/32"}}, nil)
	if err != nil || z.Updated.IsZero() {
		t.Fatalf("replace zone: %+v, %v", z, err)
	}
	rule := state.Rule{Protocol: "tcp", Ports: "8000-8100", ServerZone: "HQ"}
	if _, err := st.SetApplication(ctx, state.Application{Name: "batch", Rules: []state.Rule{rule}}, nil); err != nil {
		t.Fatal(err)
	}
	refuse := errors.New("refused")
	var seen []state.Zone
	_, err = st.SetZone(ctx, state.Zone{Name: "Bad"}, func(zs []state.Zone, as []state.Application) error {
		seen = zs
		return refuse
	})
	if !errors.Is(err, refuse) {
		t.Fatalf("a refused change answered %v", err)
	}
	if len(seen) != 3 || seen[0].Name != "Bad" {
		t.Errorf("the check saw %+v, want the set with the new zone", seen)
	}
	zs, err := st.Zones(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(zs) != 2 || zs[0].Name != "DMZ" || zs[1].Name != "HQ" || !slices.Equal(zs[1].Networks, []string{"10.0.0.0/8", "2001:db8::/32"}) {
		t.Errorf("zones = %+v", zs)
	}
	as, err := st.Applications(ctx)
	if err != nil || len(as) != 1 || !slices.Equal(as[0].Rules[0].Networks, nil) || as[0].Rules[0].Ports != "8000-8100" {
		t.Errorf("applications = %+v, %v", as, err)
	}
	if err := st.DeleteZone(ctx, "Nowhere", nil); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("deleting a missing zone: %v", err)
	}
	if err := st.DeleteApplication(ctx, "batch", nil); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteZone(ctx, "DMZ", nil); err != nil {
		t.Fatal(err)
	}
}

func TestSQLiteContext(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st, err := statedb.OpenSQLite(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	contextSuite(t, st)
	st.Close()
	// persisted across a restart
	st, err = statedb.OpenSQLite(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	zs, err := st.Zones(context.Background())
	if err != nil || len(zs) != 1 || zs[0].Name != "HQ" {
		t.Errorf("after reopening: %+v, %v", zs, err)
	}
}

// TestPostgresContext: the same, and every change notifies ContextChannel for the other nodes.
func TestPostgresContext(t *testing.T) {
	t.Parallel()
	pg := testenv.StartPostgres(t)
	url := pg.Database(t)
	st := openPostgres(t, url)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "LISTEN "+state.ContextChannel); err != nil {
		t.Fatal(err)
	}
	contextSuite(t, st)
	if _, err := conn.WaitForNotification(ctx); err != nil {
		t.Fatalf("no notification: %v", err)
	}
}
