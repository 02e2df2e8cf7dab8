package state

import (
	"context"
	"encoding/json"
	"time"
)

// Store keeps dashboards, widgets and configuration values. Implementations are safe for
// concurrent use; every method honours its context. See the package documentation for the
// guarantees every implementation gives.
type Store interface {
	// Dashboards returns every dashboard, oldest first, without their widgets; those made in
	// the same millisecond in the order they were made.
	Dashboards(ctx context.Context) ([]Dashboard, error)
	// Dashboard returns the dashboard with the given ID with its widgets, oldest first (those
	// made in the same millisecond in the order they were made).
	Dashboard(ctx context.Context, id string) (Dashboard, error)
	// CreateDashboard stores a new dashboard with d's Title and Description and returns it
	// with its ID and times.
	CreateDashboard(ctx context.Context, d Dashboard) (Dashboard, error)
	// UpdateDashboard runs change on the dashboard with the given ID (without its widgets) and
	// stores the Title and Description it leaves; it returns the dashboard as stored, with
	// its widgets. When change returns an error nothing is written and the error is returned
	// wrapped (errors.Is and errors.As find it).
	UpdateDashboard(ctx context.Context, id string, change func(*Dashboard) error) (Dashboard, error)
	// DeleteDashboard deletes the dashboard with the given ID and its widgets.
	DeleteDashboard(ctx context.Context, id string) error

	// Widget returns the widget with the given ID.
	Widget(ctx context.Context, id string) (Widget, error)
	// CreateWidget stores a new widget on the dashboard w.Dashboard with w's Title, Kind,
	// Queries and Options, and returns it with its ID and times.
	CreateWidget(ctx context.Context, w Widget) (Widget, error)
	// UpdateWidget runs change on the widget with the given ID and stores the Dashboard,
	// Title, Kind, Queries and Options it leaves; it returns the widget as stored.
	UpdateWidget(ctx context.Context, id string, change func(*Widget) error) (Widget, error)
	// DeleteWidget deletes the widget with the given ID.
	DeleteWidget(ctx context.Context, id string) error

	// Config returns the configuration values that were set, by key.
	Config(ctx context.Context) (map[string]string, error)
	// UpdateConfig runs change on the configuration values (a copy the function may modify:
	// set keys, delete keys) and stores the result; it returns the values as stored.
	UpdateConfig(ctx context.Context, change func(values map[string]string) error) (map[string]string, error)

	// AppendAudit adds e to the audit trail, stamped with the store's clock and a new ID. It
	// never drops an event: only PruneAudit does, by age, so that no caller can push out the
	// events of others by making many of its own.
	AppendAudit(ctx context.Context, e AuditEvent) error
	// Audit returns the events of the audit trail that q selects, newest first.
	Audit(ctx context.Context, q AuditQuery) ([]AuditEvent, error)
	// AppendAuditBounded adds e as AppendAudit does, for an event that must never be refused
	// (a password changed, a key revoked): when the trail holds Limits.AuditPerActor events of
	// e.User made since or more, the oldest of them whose action is e.Action goes first, so
	// that the user's trail stays bounded and keeps the latest such events.
	AppendAuditBounded(ctx context.Context, e AuditEvent, since time.Time) error
	// AuditQuota returns a *LimitError when the trail holds Limits.AuditPerActor events of
	// actor made since or more (since: the user's creation, so that a user deleted and
	// created again under the same name starts afresh), nil otherwise: the caller refuses that
	// actor's audited changes until PruneAudit makes room, rather than letting the trail grow
	// without bound.
	AuditQuota(ctx context.Context, actor string, since time.Time) error
	// PruneAudit deletes the events made before the given time and returns how many.
	PruneAudit(ctx context.Context, before time.Time) (int64, error)

	// Close releases the store. Calls after Close fail.
	Close() error
}

// AuditQuery selects events of the audit trail. The zero value selects none (Limit 0).
type AuditQuery struct {
	// Since selects the events made at or after it; zero selects every event.
	Since time.Time
	// Before selects the events whose ID is below it, so that a reader pages back to the
	// oldest event by passing the smallest ID it has read; 0 starts from the newest.
	Before int64
	// Limit is the most events answered: the newest of those selected.
	Limit int
}

// AuditEvent is one change recorded in the audit trail: who made it, from where, what, when.
// list-audit answers each as an api.AuditEvent.
type AuditEvent struct {
	// ID orders the events: a later event has a larger ID. Assigned by the store.
	ID int64
	// Time is when the change was made, to the millisecond. Assigned by the store.
	Time time.Time
	// User made the change.
	User string
	// Key is the name of the API key the call carried; empty for a session.
	Key string
	// Address is the client's IP address.
	Address string
	// Action is what was done: the function called, such as set-config or create-user.
	Action string
	// Details holds what the change was about, as a JSON object; never a password or a
	// token. Empty is stored as {}.
	Details json.RawMessage
}

// Dashboard is a titled set of widgets.
type Dashboard struct {
	// ID identifies the dashboard: a UUID assigned by the store.
	ID string
	// Title names the dashboard for people.
	Title string
	// Description says what the dashboard shows; may be empty.
	Description string
	// Owner is the user the dashboard counts against in Limits.DashboardsPerUser, and whose
	// Limits.BytesPerUser holds its title and description: set by the caller at creation and
	// by a change function (package manage makes it whoever last wrote the object).
	Owner string
	// Widgets are the dashboard's widgets, oldest first; nil where a method says it returns
	// dashboards without their widgets.
	Widgets []Widget
	// Created is when the dashboard was created.
	Created time.Time
	// Updated is when the dashboard or one of its widgets last changed.
	Updated time.Time
}

// Widget is one chart or table of a dashboard: a kind of display and the queries it shows.
type Widget struct {
	// ID identifies the widget: a UUID assigned by the store.
	ID string
	// Dashboard is the ID of the dashboard the widget belongs to.
	Dashboard string
	// Title names the widget for people.
	Title string
	// Kind is how the widget displays its queries' results (number, table, ...).
	Kind string
	// Queries are the query expressions the widget shows, in order.
	Queries []string
	// Options holds display settings as a JSON object; the store keeps its text as given.
	Options json.RawMessage
	// Owner is the user whose Limits.BytesPerUser holds the widget: set as Dashboard.Owner is.
	Owner string
	// Created is when the widget was created.
	Created time.Time
	// Updated is when the widget last changed.
	Updated time.Time
}

// Limits bounds how much a store holds, so that no caller can make it grow without end.
// The zero value of a field takes its default.
type Limits struct {
	// DashboardsPerUser is the most dashboards one owner holds. Default: 200.
	DashboardsPerUser int
	// BytesPerUser is the most bytes of text one owner's dashboards and widgets hold (titles,
	// descriptions, kinds, queries and options). Default: 16 MiB (20 widgets of the largest,
	// or thousands of usual ones).
	BytesPerUser int64
	// WidgetsPerDashboard is the most widgets one dashboard holds. Default: 100.
	WidgetsPerDashboard int
	// ConfigValues is the most configuration keys the store holds. Default: 100.
	ConfigValues int
	// AuditPerActor is the most events of one actor the audit trail holds (see AuditQuota).
	// Default: 50,000 (about 15 MB).
	AuditPerActor int
}

// WithDefaults returns l with every field left zero (or negative) set to its default.
func (l Limits) WithDefaults() Limits {
	if l.DashboardsPerUser <= 0 {
		l.DashboardsPerUser = 200
	}
	if l.BytesPerUser <= 0 {
		l.BytesPerUser = 16 << 20
	}
	if l.WidgetsPerDashboard <= 0 {
		l.WidgetsPerDashboard = 100
	}
	if l.ConfigValues <= 0 {
		l.ConfigValues = 100
	}
	if l.AuditPerActor <= 0 {
		l.AuditPerActor = 50_000
	}
	return l
}
