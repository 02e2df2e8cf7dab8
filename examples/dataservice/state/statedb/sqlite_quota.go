package statedb

import (
	"context"
	"database/sql"

	"github.com/fnapi/fnapi/examples/dataservice/state"
)

// dashboardBytes is what a dashboard counts against its owner's Limits.BytesPerUser.
func dashboardBytes(d state.Dashboard) int64 { return int64(len(d.Title) + len(d.Description)) }

// widgetBytes is what a widget counts against its owner's Limits.BytesPerUser, with its
// queries as stored.
func widgetBytes(w state.Widget, queries []byte) int64 {
	return int64(len(w.Title) + len(w.Kind) + len(queries) + len(w.Options))
}

// makeBytes refuses with a *LimitError to store size bytes for owner in the object id
// (a dashboard or widget, new or replaced) when the owner's other objects and it would
// hold more than Limits.BytesPerUser.
func (s *SQLite) makeBytes(ctx context.Context, tx *sql.Tx, owner, id string, size int64) error {
	var used int64
	// The sums read the indexes (owner, bytes) alone; the object's own bytes, which it
	// replaces, are subtracted by its primary key.
	err := tx.QueryRowContext(ctx, `SELECT CAST(
		coalesce((SELECT sum(bytes) FROM dashboards WHERE owner = ?), 0) +
		coalesce((SELECT sum(bytes) FROM widgets WHERE owner = ?), 0) -
		coalesce((SELECT bytes FROM dashboards WHERE id = ? AND owner = ?), 0) -
		coalesce((SELECT bytes FROM widgets WHERE id = ? AND owner = ?), 0) AS BIGINT)`,
		owner, owner, id, owner, id, owner).Scan(&used)
	if err != nil {
		return err
	}
	if used+size > s.limits.BytesPerUser {
		return &state.LimitError{What: "bytes", Limit: int(s.limits.BytesPerUser)}
	}
	return nil
}
