package state

import "testing"

// A schema step added for one database must be added for the other: both count the same
// versions, so that a node of either kind knows which program made a schema.
func TestMigrationsMatch(t *testing.T) {
	if len(pgMigrations) != len(migrations) {
		t.Fatalf("%d PostgreSQL migrations, %d SQLite migrations", len(pgMigrations), len(migrations))
	}
}
