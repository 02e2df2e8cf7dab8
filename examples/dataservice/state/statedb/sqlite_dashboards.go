package statedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/fnapi/fnapi/examples/dataservice/state"
)

// Dashboards returns every dashboard, oldest first, without their widgets.
func (s *SQLite) Dashboards(ctx context.Context) ([]state.Dashboard, error) {
	var out []state.Dashboard
	err := s.read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx,
			`SELECT `+dashboardColumns+` FROM dashboards ORDER BY created, id`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			d, err := scanDashboard(rows)
			if err != nil {
				return err
			}
			out = append(out, d)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("state: list dashboards: %w", err)
	}
	return out, nil
}

// Dashboard returns the dashboard with the given ID, with its widgets.
func (s *SQLite) Dashboard(ctx context.Context, id string) (state.Dashboard, error) {
	var d state.Dashboard
	err := s.read(ctx, func(tx *sql.Tx) error {
		var err error
		d, err = dashboardWithWidgets(ctx, tx, id)
		return err
	})
	return d, wrap("get dashboard", err)
}

// CreateDashboard stores a new dashboard.
func (s *SQLite) CreateDashboard(ctx context.Context, d state.Dashboard) (state.Dashboard, error) {
	t, ms := s.stamp()
	out := state.Dashboard{ID: newID(), Title: d.Title, Description: d.Description, Owner: d.Owner,
		Widgets: []state.Widget{}, Created: t, Updated: t}
	err := s.write(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM dashboards WHERE owner = ?`, d.Owner).Scan(&n); err != nil {
			return err
		}
		if n >= s.limits.DashboardsPerUser {
			return &state.LimitError{What: "dashboards", Limit: s.limits.DashboardsPerUser}
		}
		size := dashboardBytes(out)
		if err := s.makeBytes(ctx, tx, out.Owner, out.ID, size); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx,
			`INSERT INTO dashboards (id, title, description, created, updated, owner, bytes) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			out.ID, out.Title, out.Description, ms, ms, out.Owner, size)
		return err
	})
	if err != nil {
		return state.Dashboard{}, wrap("create dashboard", err)
	}
	return out, nil
}

// UpdateDashboard changes a dashboard's title and description.
func (s *SQLite) UpdateDashboard(ctx context.Context, id string, change func(*state.Dashboard) error) (state.Dashboard, error) {
	var out state.Dashboard
	err := s.write(ctx, func(tx *sql.Tx) error {
		d, err := dashboard(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := change(&d); err != nil {
			return err
		}
		size := dashboardBytes(d)
		if err := s.makeBytes(ctx, tx, d.Owner, id, size); err != nil {
			return err
		}
		_, ms := s.stamp()
		if _, err := tx.ExecContext(ctx,
			`UPDATE dashboards SET title = ?, description = ?, updated = ?, owner = ?, bytes = ? WHERE id = ?`,
			d.Title, d.Description, ms, d.Owner, size, id); err != nil {
			return err
		}
		out, err = dashboardWithWidgets(ctx, tx, id)
		return err
	})
	if err != nil {
		return state.Dashboard{}, wrap("update dashboard", err)
	}
	return out, nil
}

// DeleteDashboard deletes a dashboard and its widgets.
func (s *SQLite) DeleteDashboard(ctx context.Context, id string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		// Widgets go explicitly rather than by the foreign key's cascade alone, so that a
		// database opened without foreign_keys keeps no orphans.
		if _, err := tx.ExecContext(ctx, `DELETE FROM widgets WHERE dashboard = ?`, id); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM dashboards WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return &state.NotFoundError{Kind: "dashboard", ID: id}
		}
		return nil
	})
	return wrap("delete dashboard", err)
}

const dashboardColumns = `id, title, description, created, updated, owner`

type scanner interface{ Scan(dest ...any) error }

func scanDashboard(r scanner) (state.Dashboard, error) {
	var d state.Dashboard
	var created, updated int64
	if err := r.Scan(&d.ID, &d.Title, &d.Description, &created, &updated, &d.Owner); err != nil {
		return state.Dashboard{}, err
	}
	d.Created, d.Updated = fromMillis(created), fromMillis(updated)
	return d, nil
}

// dashboard reads one dashboard without its widgets.
func dashboard(ctx context.Context, q queryer, id string) (state.Dashboard, error) {
	d, err := scanDashboard(q.QueryRowContext(ctx,
		`SELECT `+dashboardColumns+` FROM dashboards WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return state.Dashboard{}, &state.NotFoundError{Kind: "dashboard", ID: id}
	}
	return d, err
}

// dashboardWithWidgets reads one dashboard and its widgets.
func dashboardWithWidgets(ctx context.Context, q queryer, id string) (state.Dashboard, error) {
	d, err := dashboard(ctx, q, id)
	if err != nil {
		return state.Dashboard{}, err
	}
	rows, err := q.QueryContext(ctx, `SELECT `+widgetColumns+` FROM widgets
		WHERE dashboard = ? ORDER BY created, id`, id)
	if err != nil {
		return state.Dashboard{}, err
	}
	defer rows.Close()
	d.Widgets = []state.Widget{}
	for rows.Next() {
		w, err := scanWidget(rows)
		if err != nil {
			return state.Dashboard{}, err
		}
		d.Widgets = append(d.Widgets, w)
	}
	return d, rows.Err()
}

// wrap prefixes err with the operation, leaving the store's own errors (and the change
// functions' errors) matchable with errors.Is and errors.As.
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if DiskFull(err) {
		return fmt.Errorf("state: %s: %w: %w", op, state.ErrUnavailable, err)
	}
	return fmt.Errorf("state: %s: %w", op, err)
}
