package manage

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/pvql"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/registry"
)

// service holds what the functions need.
type service struct {
	store    state.Store
	settings *Settings
	validate func(expr string) error
}

// Register adds the management functions (see the package documentation) to reg, at the
// registry's default version. They keep dashboards and widgets in st and the configuration in
// settings, which must have been made from the same store.
func Register(reg *registry.Registry, st state.Store, settings *Settings) error {
	if st == nil || settings == nil {
		return fmt.Errorf("manage: Register needs a store and settings")
	}
	s := &service{store: st, settings: settings, validate: pvql.Validate}
	// Each function implements its declaration in package api: a signature that differs from
	// the declaration's does not compile.
	listDashboards := func(ctx context.Context, _ decl.None) ([]api.DashboardSummary, error) { return s.listDashboards(ctx) }
	getConfig := func(context.Context, decl.None) (map[string]json.RawMessage, error) { return s.getConfig(), nil }
	reader, user, admin := registry.Requires(authapi.RoleReadOnly), registry.Requires(authapi.RoleUser), registry.Requires(authapi.RoleAdmin)
	for _, err := range []error{
		registry.Implement(reg, api.ListDashboards, listDashboards, reader, registry.ReadOnly()),
		registry.Implement(reg, api.GetDashboard, s.getDashboard, reader, registry.ReadOnly()),
		registry.Implement(reg, api.CreateDashboard, s.createDashboard, user),
		registry.Implement(reg, api.UpdateDashboard, s.updateDashboard, user),
		registry.Implement(reg, api.DeleteDashboard, s.deleteDashboard, user),
		registry.Implement(reg, api.CreateWidget, s.createWidget, user),
		registry.Implement(reg, api.UpdateWidget, s.updateWidget, user),
		registry.Implement(reg, api.DeleteWidget, s.deleteWidget, user),
		registry.Implement(reg, api.GetConfig, getConfig, admin, registry.ReadOnly(), registry.Describe(
			"Answers every configuration key with its value: as set, or the default. "+keysDoc())),
		registry.Implement(reg, api.SetConfig, s.setConfig, admin, registry.Describe(
			"Sets configuration values, all or none, and answers the configuration as get-config does. "+
				"A null value resets its key to the default. "+keysDoc())),
		registry.Implement(reg, api.ListAudit, s.listAudit, admin, registry.ReadOnly()),
	} {
		if err != nil {
			return fmt.Errorf("manage: %w", err)
		}
	}
	return nil
}

// MustRegister is Register for set-up code: it panics on error.
func MustRegister(reg *registry.Registry, st state.Store, settings *Settings) {
	if err := Register(reg, st, settings); err != nil {
		panic(err)
	}
}

// keysDoc describes the configuration keys for doc.
func keysDoc() string {
	out := "Keys (durations are strings with one unit of s, m, h, d or w, such as \"90s\", \"2h\", \"30d\"):"
	for i, k := range Keys() {
		if i > 0 {
			out += ";"
		}
		out += fmt.Sprintf(" %s: %s (default %s, %s)", k.Name, k.Description, k.defaultJSON(), k.bounds())
	}
	return out + "."
}
