package manage

import (
	"fmt"

	"github.com/fnapi/fnapi/auth"
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
	limited := registry.Errors(LimitReached)
	reader, user, admin := auth.Requires(auth.RoleReadOnly), auth.Requires(auth.RoleUser), auth.Requires(auth.RoleAdmin)
	funcs := []struct {
		name string
		fn   any
		opts []registry.Option
	}{
		{"list-dashboards", s.listDashboards, []registry.Option{reader,
			registry.Describe("Lists every dashboard, oldest first, without its widgets.")}},
		{"get-dashboard", s.getDashboard, []registry.Option{reader,
			registry.Describe("Answers a dashboard with its widgets.")}},
		{"create-dashboard", s.createDashboard, []registry.Option{user, limited,
			registry.Describe("Creates a dashboard, without widgets, and answers it.")}},
		{"update-dashboard", s.updateDashboard, []registry.Option{user,
			registry.Describe("Changes a dashboard's title or description and answers the dashboard.")}},
		{"delete-dashboard", s.deleteDashboard, []registry.Option{user,
			registry.Describe("Deletes a dashboard and its widgets; answers true.")}},
		{"create-widget", s.createWidget, []registry.Option{user, registry.Errors(QuerySyntax, LimitReached),
			registry.Describe("Adds a widget to a dashboard and answers it. Each query must be valid in the query language.")}},
		{"update-widget", s.updateWidget, []registry.Option{user, registry.Errors(QuerySyntax, LimitReached),
			registry.Describe("Changes a widget, or moves it to another dashboard, and answers it. Arguments left out stay as they are.")}},
		{"delete-widget", s.deleteWidget, []registry.Option{user,
			registry.Describe("Deletes a widget; answers true.")}},
		{"get-config", s.getConfig, []registry.Option{admin,
			registry.Describe("Answers every configuration key with its value: as set, or the default. " + keysDoc())}},
		{"set-config", s.setConfig, []registry.Option{admin,
			registry.Describe("Sets configuration values, all or none, and answers the configuration as get-config does. " +
				"A null value resets its key to the default. " + keysDoc())}},
		{"list-audit", s.listAudit, []registry.Option{admin, registry.Since("1.2"),
			registry.Describe("Answers the newest events of the audit trail, newest first: every change of configuration, users and API keys, " +
				"with who made it (user, and key when made with an API key), from where (address), what (action: the function, and details: its arguments, never a password) and when (time). " +
				"At most limit events (default 100, at most 1000), from since on. Administrators only.")}},
	}
	for _, f := range funcs {
		if err := reg.Register(f.name, f.fn, f.opts...); err != nil {
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
