package statedb

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/fnapi/fnapi/examples/dataservice/state"
)

// migrationContext is the schema step that keeps zones and applications: networks and rules
// as JSON text, updated in Unix milliseconds.
const migrationContext = `CREATE TABLE zones (
		name     TEXT PRIMARY KEY,
		networks TEXT NOT NULL,
		updated  INTEGER NOT NULL
	);
	CREATE TABLE applications (
		name    TEXT PRIMARY KEY,
		rules   TEXT NOT NULL,
		updated INTEGER NOT NULL
	);`

var _ state.ContextStore = (*SQLite)(nil)

// Zones returns every zone, by name.
func (s *SQLite) Zones(ctx context.Context) ([]state.Zone, error) {
	var out []state.Zone
	err := s.read(ctx, func(tx *sql.Tx) error {
		var err error
		out, err = zones(ctx, tx)
		return err
	})
	return out, wrap("list zones", err)
}

// Applications returns every application, by name.
func (s *SQLite) Applications(ctx context.Context) ([]state.Application, error) {
	var out []state.Application
	err := s.read(ctx, func(tx *sql.Tx) error {
		var err error
		out, err = applications(ctx, tx)
		return err
	})
	return out, wrap("list applications", err)
}

// SetZone creates or replaces a zone.
func (s *SQLite) SetZone(ctx context.Context, z state.Zone, check state.CheckContext) (state.Zone, error) {
	t, ms := s.stamp()
	z.Updated, z.Networks = t, slices.Clone(z.Networks)
	if z.Networks == nil {
		z.Networks = []string{}
	}
	err := s.changeContext(ctx, check, func(zs []state.Zone, as []state.Application) ([]state.Zone, []state.Application, error) {
		i, found := slices.BinarySearchFunc(zs, z.Name, func(a state.Zone, n string) int { return strings.Compare(a.Name, n) })
		if found {
			zs[i] = z
		} else {
			if len(zs) >= state.MaxZones {
				return nil, nil, &state.LimitError{What: "zones", Limit: state.MaxZones}
			}
			zs = slices.Insert(zs, i, z)
		}
		return zs, as, nil
	}, func(tx *sql.Tx) error {
		b, _ := json.Marshal(z.Networks)
		_, err := tx.ExecContext(ctx, `INSERT INTO zones (name, networks, updated) VALUES (?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET networks = excluded.networks, updated = excluded.updated`, z.Name, string(b), ms)
		return err
	})
	if err != nil {
		return state.Zone{}, wrap("set zone", err)
	}
	return z, nil
}

// DeleteZone deletes a zone.
func (s *SQLite) DeleteZone(ctx context.Context, name string, check state.CheckContext) error {
	err := s.changeContext(ctx, check, func(zs []state.Zone, as []state.Application) ([]state.Zone, []state.Application, error) {
		i := slices.IndexFunc(zs, func(z state.Zone) bool { return z.Name == name })
		if i < 0 {
			return nil, nil, &state.NotFoundError{Kind: "zone", ID: name}
		}
		return slices.Delete(zs, i, i+1), as, nil
	}, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM zones WHERE name = ?`, name)
		return err
	})
	return wrap("delete zone", err)
}

// SetApplication creates or replaces an application.
func (s *SQLite) SetApplication(ctx context.Context, a state.Application, check state.CheckContext) (state.Application, error) {
	t, ms := s.stamp()
	a.Updated, a.Rules = t, slices.Clone(a.Rules)
	if a.Rules == nil {
		a.Rules = []state.Rule{}
	}
	err := s.changeContext(ctx, check, func(zs []state.Zone, as []state.Application) ([]state.Zone, []state.Application, error) {
		i, found := slices.BinarySearchFunc(as, a.Name, func(x state.Application, n string) int { return strings.Compare(x.Name, n) })
		if found {
			as[i] = a
		} else {
			if len(as) >= state.MaxApplications {
				return nil, nil, &state.LimitError{What: "applications", Limit: state.MaxApplications}
			}
			as = slices.Insert(as, i, a)
		}
		return zs, as, nil
	}, func(tx *sql.Tx) error {
		b, _ := json.Marshal(a.Rules)
		_, err := tx.ExecContext(ctx, `INSERT INTO applications (name, rules, updated) VALUES (?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET rules = excluded.rules, updated = excluded.updated`, a.Name, string(b), ms)
		return err
	})
	if err != nil {
		return state.Application{}, wrap("set application", err)
	}
	return a, nil
}

// DeleteApplication deletes an application.
func (s *SQLite) DeleteApplication(ctx context.Context, name string, check state.CheckContext) error {
	err := s.changeContext(ctx, check, func(zs []state.Zone, as []state.Application) ([]state.Zone, []state.Application, error) {
		i := slices.IndexFunc(as, func(a state.Application) bool { return a.Name == name })
		if i < 0 {
			return nil, nil, &state.NotFoundError{Kind: "application", ID: name}
		}
		return zs, slices.Delete(as, i, i+1), nil
	}, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM applications WHERE name = ?`, name)
		return err
	})
	return wrap("delete application", err)
}

// changeContext runs, in one write transaction: the change of the whole set, check on what
// it leaves, then write; with PostgreSQL it notifies ContextChannel at the commit.
func (s *SQLite) changeContext(ctx context.Context, check state.CheckContext,
	change func([]state.Zone, []state.Application) ([]state.Zone, []state.Application, error), write func(*sql.Tx) error) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		zs, err := zones(ctx, tx)
		if err != nil {
			return err
		}
		as, err := applications(ctx, tx)
		if err != nil {
			return err
		}
		if zs, as, err = change(zs, as); err != nil {
			return err
		}
		if check != nil {
			if err := check(zs, as); err != nil {
				return err
			}
		}
		if err := write(tx); err != nil {
			return err
		}
		if s.writeLock != "" { // PostgreSQL: delivered at the commit, to every node listening
			if _, err := tx.ExecContext(ctx, `SELECT pg_notify(?, '')`, state.ContextChannel); err != nil {
				return err
			}
		}
		return nil
	})
}

func zones(ctx context.Context, q queryer) ([]state.Zone, error) {
	rows, err := q.QueryContext(ctx, `SELECT name, networks, updated FROM zones ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []state.Zone{}
	for rows.Next() {
		var z state.Zone
		var nets string
		var ms int64
		if err := rows.Scan(&z.Name, &nets, &ms); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(nets), &z.Networks); err != nil {
			return nil, fmt.Errorf("zone %q: %w", z.Name, err)
		}
		z.Updated = fromMillis(ms)
		out = append(out, z)
	}
	// by bytes, whatever the database's collation
	slices.SortFunc(out, func(a, b state.Zone) int { return strings.Compare(a.Name, b.Name) })
	return out, rows.Err()
}

func applications(ctx context.Context, q queryer) ([]state.Application, error) {
	rows, err := q.QueryContext(ctx, `SELECT name, rules, updated FROM applications ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []state.Application{}
	for rows.Next() {
		var a state.Application
		var rules string
		var ms int64
		if err := rows.Scan(&a.Name, &rules, &ms); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(rules), &a.Rules); err != nil {
			return nil, fmt.Errorf("application %q: %w", a.Name, err)
		}
		a.Updated = fromMillis(ms)
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b state.Application) int { return strings.Compare(a.Name, b.Name) })
	return out, rows.Err()
}
