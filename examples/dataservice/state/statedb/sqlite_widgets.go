package statedb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fnapi/fnapi/examples/dataservice/state"
)

const widgetColumns = `id, dashboard, title, kind, queries, options, created, updated, owner`

// Widget returns one widget.
func (s *SQLite) Widget(ctx context.Context, id string) (state.Widget, error) {
	var w state.Widget
	err := s.read(ctx, func(tx *sql.Tx) error {
		var err error
		w, err = widget(ctx, tx, id)
		return err
	})
	return w, wrap("get widget", err)
}

// CreateWidget stores a new widget on its dashboard.
func (s *SQLite) CreateWidget(ctx context.Context, w state.Widget) (state.Widget, error) {
	t, ms := s.stamp()
	out := w
	out.ID, out.Created, out.Updated = newID(), t, t
	out.Queries = append([]string{}, w.Queries...)
	out.Options = normalOptions(w.Options)
	queries, err := json.Marshal(out.Queries)
	if err != nil {
		return state.Widget{}, fmt.Errorf("state: create widget: %w", err)
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		if err := s.makeRoom(ctx, tx, w.Dashboard, ms); err != nil {
			return err
		}
		size := widgetBytes(out, queries)
		if err := s.makeBytes(ctx, tx, out.Owner, out.ID, size); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO widgets (`+widgetColumns+`, bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			out.ID, out.Dashboard, out.Title, out.Kind, string(queries), string(out.Options), ms, ms, out.Owner, size)
		return err
	})
	if err != nil {
		return state.Widget{}, wrap("create widget", err)
	}
	return out, nil
}

// UpdateWidget changes a widget, possibly moving it to another dashboard.
func (s *SQLite) UpdateWidget(ctx context.Context, id string, change func(*state.Widget) error) (state.Widget, error) {
	var out state.Widget
	err := s.write(ctx, func(tx *sql.Tx) error {
		w, err := widget(ctx, tx, id)
		if err != nil {
			return err
		}
		from := w.Dashboard
		if err := change(&w); err != nil {
			return err
		}
		_, ms := s.stamp()
		if w.Dashboard != from {
			if err := s.makeRoom(ctx, tx, w.Dashboard, ms); err != nil {
				return err
			}
		}
		if err := touchDashboard(ctx, tx, from, ms); err != nil {
			return err
		}
		w.Options = normalOptions(w.Options)
		queries, err := json.Marshal(append([]string{}, w.Queries...))
		if err != nil {
			return err
		}
		size := widgetBytes(w, queries)
		if err := s.makeBytes(ctx, tx, w.Owner, id, size); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE widgets SET dashboard = ?, title = ?, kind = ?,
			queries = ?, options = ?, updated = ?, owner = ?, bytes = ? WHERE id = ?`,
			w.Dashboard, w.Title, w.Kind, string(queries), string(w.Options), ms, w.Owner, size, id); err != nil {
			return err
		}
		out, err = widget(ctx, tx, id)
		return err
	})
	if err != nil {
		return state.Widget{}, wrap("update widget", err)
	}
	return out, nil
}

// DeleteWidget deletes one widget.
func (s *SQLite) DeleteWidget(ctx context.Context, id string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		w, err := widget(ctx, tx, id)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM widgets WHERE id = ?`, id); err != nil {
			return err
		}
		_, ms := s.stamp()
		return touchDashboard(ctx, tx, w.Dashboard, ms)
	})
	return wrap("delete widget", err)
}

// makeRoom checks that the dashboard exists and can take one more widget, and marks it
// updated at ms.
func (s *SQLite) makeRoom(ctx context.Context, tx *sql.Tx, dashboard string, ms int64) error {
	if err := touchDashboard(ctx, tx, dashboard, ms); err != nil {
		return err
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM widgets WHERE dashboard = ?`, dashboard).Scan(&n); err != nil {
		return err
	}
	if n >= s.limits.WidgetsPerDashboard {
		return &state.LimitError{What: "widgets", Limit: s.limits.WidgetsPerDashboard}
	}
	return nil
}

// touchDashboard sets a dashboard's updated time, or reports that it does not exist.
func touchDashboard(ctx context.Context, tx *sql.Tx, id string, ms int64) error {
	res, err := tx.ExecContext(ctx, `UPDATE dashboards SET updated = ? WHERE id = ?`, ms, id)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return &state.NotFoundError{Kind: "dashboard", ID: id}
	}
	return nil
}

func widget(ctx context.Context, q queryer, id string) (state.Widget, error) {
	w, err := scanWidget(q.QueryRowContext(ctx, `SELECT `+widgetColumns+` FROM widgets WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return state.Widget{}, &state.NotFoundError{Kind: "widget", ID: id}
	}
	return w, err
}

func scanWidget(r scanner) (state.Widget, error) {
	var w state.Widget
	var queries, options string
	var created, updated int64
	if err := r.Scan(&w.ID, &w.Dashboard, &w.Title, &w.Kind, &queries, &options, &created, &updated, &w.Owner); err != nil {
		return state.Widget{}, err
	}
	if err := json.Unmarshal([]byte(queries), &w.Queries); err != nil {
		return state.Widget{}, fmt.Errorf("widget %s: stored queries: %w", w.ID, err)
	}
	if w.Queries == nil {
		w.Queries = []string{}
	}
	w.Options = json.RawMessage(options)
	w.Created, w.Updated = fromMillis(created), fromMillis(updated)
	return w, nil
}

// normalOptions returns the options to store: an empty object when none were given.
func normalOptions(o json.RawMessage) json.RawMessage {
	if len(o) == 0 {
		return json.RawMessage(`{}`)
	}
	return append(json.RawMessage(nil), o...)
}
