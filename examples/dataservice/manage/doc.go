// Package manage holds the management functions of the example data service: dashboards,
// their widgets, and the service's configuration. Register adds them to a registry; they keep
// everything in a state.Store, and every call is all-or-nothing.
//
// # Functions
//
// All need a token (decl.Token), and the role named (registry.Requires with an authapi.Role): list-dashboards and
// get-dashboard read-only, the changes of dashboards and widgets user, get-config, set-config
// and list-audit administrator.
//
//   - list-dashboards(): every dashboard, oldest first, without widgets.
//   - get-dashboard(id), create-dashboard(title, [description]), update-dashboard(id, [title],
//     [description]): a dashboard with its widgets. delete-dashboard(id) deletes it and its
//     widgets, and answers true.
//   - create-widget(dashboard, title, kind, queries, [options]) and update-widget(id,
//     [dashboard], [title], [kind], [queries], [options]) answer the widget; update-widget
//     with a dashboard moves the widget there. delete-widget(id) answers true.
//     In update-dashboard and update-widget an argument left out, or null, stays as it is.
//   - get-config() answers every configuration key with its value; set-config(values) sets
//     some of them at once and answers the same as get-config.
//   - list-zones, set-zone, delete-zone, list-applications, set-application and
//     delete-application (API 1.3, administrators; RegisterContext adds them) keep the
//     operator's zones and applications in a state.ContextStore, checked as a whole set
//     (package netctx), and apply each change at once; LoadContext reads them at start.
//   - list-audit([since], [limit], [before]) (API 1.2) answers the newest events of the audit
//     trail that AuditInterceptor writes for every change of configuration, users, keys,
//     dashboards and widgets (Audited); before pages back to the oldest. Events go by age
//     (audit_retention), and each user's audited calls stop at its quota in the trail, but
//     security self-service (Security), which is never refused.
//
// Shapes: a dashboard is {"id", "title", "description", "widgets", "created", "updated"} (no
// "widgets" in list-dashboards); a widget is {"id", "dashboard", "title", "kind", "queries",
// "options", "created", "updated"}. IDs are UUIDs; times are RFC 3339, UTC, to the second.
// A dashboard's updated time also moves when one of its widgets is added, changed, moved or
// deleted. Titles need not be unique: dashboards and widgets are known by their IDs.
//
// # Validation
//
// Every argument is checked before anything is written, and a refused call changes nothing:
//
//   - titles: 1 to MaxTitle characters, not blank; descriptions: at most MaxDescription;
//   - kind: one of Kinds (INVALID-ARGUMENT naming kind otherwise);
//   - queries: 1 to MaxQueries expressions of at most MaxQueryLength characters, each valid in
//     the query language; a bad one is QUERY-SYNTAX with position and expected (as package
//     pvql reports them) and index, the 0-based place of the query in queries;
//   - options: a JSON object of at most MaxOptionsBytes bytes (compact), kept as given;
//     absent means {} on create and "unchanged" on update;
//   - ids: at most MaxIDLength characters; an ID that names nothing is NOT-FOUND.
//
// NOT-FOUND carries name, the ID that names nothing, and object, its kind ("dashboard" or
// "widget"): update-widget and create-widget name the dashboard when that is what is missing.
// A store full to one of its limits (the caller's dashboards or bytes, widgets of one
// dashboard, the caller's audit events) answers LIMIT-REACHED with name (what is full) and
// limit, HTTP status 409; dashboards and widgets count against whoever last wrote them. A
// full disk answers UNAVAILABLE (503).
//
// # Configuration
//
// A Settings holds the configuration: a schema per key (Keys lists them), the values set
// (kept in the store as JSON), defaults for the rest. Durations are strings of digits and one
// unit, s, m, h, d (24 h) or w (7 d): "90s", "2h", "30d"; get-config answers them as they
// were set. rate_limit is a whole number (calls per second per caller, 0 for none). set-config refuses, as INVALID-ARGUMENT naming the key (with a reason), an
// unknown key, a value of the wrong type, out of its key's bounds, or a session_idle longer
// than the session_max it would have; then nothing is set. A null value resets its key to
// the default.
//
// The application reads the typed values with Settings.Config (or the getters), and applies
// changes with Settings.Watch, whose function is called at once and after every change:
// session_idle and session_max for the sessions, retention for the records store,
// default_period for queries. With several API nodes sharing one store, each node calls
// Settings.Reload now and then to see the others' changes.
package manage
