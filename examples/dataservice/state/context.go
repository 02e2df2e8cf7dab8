package state

import (
	"context"
	"time"
)

// ContextChannel is the PostgreSQL notification channel on which a Postgres store announces,
// at the commit, that zones or applications changed, so that other nodes re-read them.
const ContextChannel = "fnapi_context"

// Bounds of the zones and applications a store holds.
const (
	// MaxZones is the most zones a store holds.
	MaxZones = 10_000
	// MaxApplications is the most applications a store holds.
	MaxApplications = 10_000
)

// ContextStore keeps the operator's zones and applications, the context given to records.
// SQLite and Postgres implement it. Each change runs check on the whole set it would leave,
// in its write transaction: an error of check leaves nothing written and is returned wrapped
// (errors.Is and errors.As find it), so that a set that is valid as a whole is all that is
// ever stored, even with several nodes changing it at once.
type ContextStore interface {
	// Zones returns every zone, by name.
	Zones(ctx context.Context) ([]Zone, error)
	// SetZone creates or replaces the zone z.Name and returns it as stored.
	SetZone(ctx context.Context, z Zone, check CheckContext) (Zone, error)
	// DeleteZone deletes the zone named name (a *NotFoundError when there is none).
	DeleteZone(ctx context.Context, name string, check CheckContext) error
	// Applications returns every application, by name.
	Applications(ctx context.Context) ([]Application, error)
	// SetApplication creates or replaces the application a.Name and returns it as stored.
	SetApplication(ctx context.Context, a Application, check CheckContext) (Application, error)
	// DeleteApplication deletes the application named name (a *NotFoundError when there
	// is none).
	DeleteApplication(ctx context.Context, name string, check CheckContext) error
}

// CheckContext checks the zones and applications a change would leave (each by name).
type CheckContext func(zones []Zone, apps []Application) error

// Zone is a named set of networks.
type Zone struct {
	// Name names the zone; "/" nests names ("Customers/ACME").
	Name string
	// Networks are CIDRs as text, in the order given.
	Networks []string
	// Updated is when the zone was last set.
	Updated time.Time
}

// Application is one of the operator's applications: the rules that name it.
type Application struct {
	Name    string
	Rules   []Rule
	Updated time.Time
}

// Rule is a rule of an application as stored (package netctx checks and compiles it).
type Rule struct {
	Protocol   string   `json:"protocol,omitempty"`
	Ports      string   `json:"ports,omitempty"`
	ServerZone string   `json:"server_zone,omitempty"`
	ClientZone string   `json:"client_zone,omitempty"`
	Networks   []string `json:"networks,omitempty"`
}
