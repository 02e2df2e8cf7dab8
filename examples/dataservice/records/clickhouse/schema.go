package clickhouse

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fnapi/fnapi/examples/dataservice/records"

	chdriver "github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// SchemaVersion is the version of the ClickHouse tables' shape, kept in the table
// records_version beside them: the number of chSteps a server's tables have had. The service
// refuses a records table of another shape, and a later version, rather than alter it.
const SchemaVersion = 12

// chStep is one schema version of a server's tables (a shard's): what a server at the version
// before it needs. ClickHouse has no transactions over tables: each step may be run again after
// it failed midway (IF NOT EXISTS, shapes checked), and its number is recorded in
// records_version once it succeeded.
type chStep func(ctx context.Context, c chdriver.Conn) error

// chSteps are the schema versions, numbered as records_version has kept them; append only (a
// released step never changes, a new table or column is a new step, and SchemaVersion is their
// number). A server of the version before records_version existed is at 0.
var chSteps = [SchemaVersion]chStep{
	// 1: the records table.
	func(ctx context.Context, c chdriver.Conn) error { return ensureTable(ctx, c, "records", chLocalEngine) },
	// 2: the per-minute rollup (records_minute, its view, and records_minute_dist in a cluster),
	// summed from the records by chRepair at open, writing nothing into records. The rollups
	// of the steps before 7 lack the measures, which the records lacked before 4.
	func(ctx context.Context, c chdriver.Conn) error {
		return chEnsureRollup(ctx, c, &chUnmeasured(chRollups[:1])[0])
	},
	// 3: the rollups' sums as Decimal128 rather than UInt64, which wrapped around: each rollup
	// of another shape is made anew (chEnsureRollup) and summed again from the records. The
	// rollups of that version: those before the context's.
	func(ctx context.Context, c chdriver.Conn) error {
		return chEnsureRollupsOf(ctx, c, chUnmeasured(chTransportRollups[:len(chTransportRollups)-chContextRollups]))
	},
	// 4: the capture probe's columns (rtt, ct, srt, dtt sums and samples, retransmissions, zero
	// windows, resets, server_name), zero in the rows the table had.
	func(ctx context.Context, c chdriver.Conn) error {
		return addColumns(ctx, c, "records", records.ColServerName+1)
	},
	// 5: the context's columns (zones, autonomous systems, countries, exporter and interface
	// names; records.Place), empty in the rows the table had, and the context's rollups,
	// summed from the records by chRepair at open.
	addContext,
	// 6: the histograms of the times, their samples in the bucket of their average in the rows
	// the table had.
	addHistograms,
	// 7: the capture probe's measures and histograms in every rollup (Measures): each rollup
	// made anew (chEnsureRollup, its shape another), summed again from the records by chRepair
	// at open (every day of an empty rollup differs from the records). The rollups of that
	// version: the five of chRollups.
	func(ctx context.Context, c chdriver.Conn) error { return chEnsureRollupsOf(ctx, c, chTransportRollups) },
	// 8: each rollup's index with a mark every chRollupGranularity rows (chRegranulate). The
	// rollups of that version: the five of chRollups.
	func(ctx context.Context, c chdriver.Conn) error { return chRegranulate(ctx, c, chTransportRollups) },
	// 9: the layers' columns (records.LayerColumns: the layer, 0 the transport, and the keys of
	// HTTP, DNS and TLS), 0 and empty in the rows the table had, all of the transport; then
	// the rollups' views dropped, which summed every record: migrate makes them anew summing
	// the transport's alone (chLayerCond), and chRepair sums again the days they missed
	// meanwhile.
	addLayers,
	// 10: the routes' AS paths and communities (records.RouteColumns), empty in the rows the
	// table had.
	func(ctx context.Context, c chdriver.Conn) error {
		return chAddColumns(ctx, c, "records", records.RouteColumns...)
	},
	// 11: the HTTP layer's rollups per minute, hour and 6 hours (chHTTPRollups' first three),
	// summed from the records' requests by chRepair at open.
	func(ctx context.Context, c chdriver.Conn) error { return chEnsureRollups(ctx, c, chHTTPRollups[:3]) },
	// 12: the HTTP layer's rollup per 10 minutes, summed from the records' requests by chRepair
	// at open.
	func(ctx context.Context, c chdriver.Conn) error { return chEnsureRollups(ctx, c, chHTTPRollups[3:4]) },
}

// addLayers is step 9 on c.
func addLayers(ctx context.Context, c chdriver.Conn) error {
	if err := chAddColumns(ctx, c, "records", records.ColumnRange(records.ColLayer, records.ColTLSIssuer)...); err != nil {
		return err
	}
	for i := range chTransportRollups {
		if err := c.Exec(ctx, "DROP TABLE IF EXISTS "+chView(&chTransportRollups[i])); err != nil {
			return fmt.Errorf("records: clickhouse: upgrading to schema version 9, dropping %s: %w (the next start resumes it)", chView(&chTransportRollups[i]), unavailable(err))
		}
	}
	return nil
}

// version is the schema version of this program's tables: SchemaVersion, and a step after it
// for each column a test build added (records.AddColumn), which chAddColumns adds as its
// descriptor says (addedStep).
func version() uint32 { return uint32(SchemaVersion + records.ColumnCount() - records.NumColumns) }

// addedStep is the step of version v > SchemaVersion: the column a test build added for it.
func addedStep(v uint32) chStep {
	return func(ctx context.Context, c chdriver.Conn) error {
		return chAddColumns(ctx, c, "records", records.NumColumns+records.Column(v-SchemaVersion-1))
	}
}

// chRegranulate is step 8 on c: each rollup of rs whose table has another index granularity
// is made anew with chRollupGranularity and its rows copied there; its view, which names its
// table, then writes into the new one. Rows a view wrote into the old table between the copy
// and the rename are summed again from the records by chRepair, as are the rows of a day copied
// twice by two nodes upgrading at once (the day's sums then differ from the records'). Run
// again after it failed midway, it copies anew, or drops what the rename left.
func chRegranulate(ctx context.Context, c chdriver.Conn, rs []records.Rollup) error {
	for i := range rs {
		r := &rs[i]
		fresh, old := r.Table+"_v8", r.Table+"_v7"
		var engine string
		err := c.QueryRow(ctx, "SELECT engine_full FROM system.tables WHERE database = currentDatabase() AND name = ?", r.Table).Scan(&engine)
		if errors.Is(err, sql.ErrNoRows) {
			continue // made at the end of migrate
		}
		if err != nil {
			return fmt.Errorf("records: clickhouse: %w", unavailable(err))
		}
		stmts := []string{"DROP TABLE IF EXISTS " + old}
		if !strings.Contains(engine, chGranularity) {
			cols := chRollupStored(r)
			stmts = []string{
				"DROP TABLE IF EXISTS " + fresh,
				"CREATE TABLE " + fresh + " (" + chRollupDefs(r) + ") ENGINE = " + chRollupEngine(r),
				"INSERT INTO " + fresh + " (" + cols + ") SELECT " + cols + " FROM " + r.Table,
				"RENAME TABLE " + r.Table + " TO " + old + ", " + fresh + " TO " + r.Table,
				"DROP TABLE " + old,
			}
		}
		for _, stmt := range stmts {
			if err := c.Exec(ctx, stmt); err != nil {
				return fmt.Errorf("records: clickhouse: upgrading to schema version 8, remaking %s with a mark every %d rows: %w (the next start resumes it)", r.Table, chRollupGranularity, unavailable(err))
			}
		}
	}
	return nil
}

// contextColumns are the columns step 5 adds, as that step added them: frozen, since the
// records table may gain more later, each in a step of its own (chAddColumns).
var contextColumns = records.ColumnRange(records.ColClientZone, records.ColOutIfAlias)

// addContext is step 5 on c: contextColumns added to the records table where missing, then
// the context's rollups.
func addContext(ctx context.Context, c chdriver.Conn) error {
	if err := chAddColumns(ctx, c, "records", contextColumns...); err != nil {
		return err
	}
	return chEnsureRollupsOf(ctx, c, chUnmeasured(chTransportRollups[len(chTransportRollups)-chContextRollups:]))
}

// chAddColumns adds cols to table on c where missing, each of its kind's type (as its
// descriptor in package records says; ClickHouse gives the rows a table had the type's default,
// 0 or empty): a step that adds a column is one call of it at the end of chSteps.
func chAddColumns(ctx context.Context, c chdriver.Conn, table string, cols ...records.Column) error {
	have, _, err := tableShape(ctx, c, table)
	if err != nil {
		return err
	}
	for _, col := range cols {
		k := col.Kind()
		if k == records.KindAddr {
			k = records.KindUint64
		}
		for _, n := range col.SQLNames() {
			def := n + " " + chDialect.Types[k]
			if slices.Contains(have, def) {
				continue
			}
			if err := c.Exec(ctx, "ALTER TABLE "+table+" ADD COLUMN "+def); err != nil {
				return fmt.Errorf("records: clickhouse: adding column %s to %s: %w", n, table, unavailable(err))
			}
		}
	}
	return nil
}

// addHistograms is step 6: a histogram column for each time, frozen here as this version made
// them, whose DEFAULT gives the rows of earlier parts their samples in the bucket of their
// average, as ingest keeps a time that came without a histogram (records.Timing.Buckets):
// ClickHouse computes it when it reads a part without the column, and writes it when it
// merges one. Rows written since carry their histograms.
func addHistograms(ctx context.Context, c chdriver.Conn) error {
	have, _, err := tableShape(ctx, c, "records")
	if err != nil || len(have) == 0 {
		return err
	}
	for _, t := range []struct{ hist, sum, samples string }{
		{"client_rtt_hist", "client_rtt_us", "client_rtt_samples"}, {"server_rtt_hist", "server_rtt_us", "server_rtt_samples"},
		{"ct_hist", "ct_us", "ct_samples"}, {"srt_hist", "srt_us", "srt_samples"}, {"dtt_hist", "dtt_us", "dtt_samples"},
	} {
		if slices.Contains(have, t.hist+" Array(UInt64)") {
			continue
		}
		ddl := "ALTER TABLE records ADD COLUMN " + t.hist + " Array(UInt64) DEFAULT if(" + t.samples + " > 0, [" +
			records.HistEntrySQL(t.sum, t.samples, "log", "UInt64") + "], emptyArrayUInt64())"
		if err := c.Exec(ctx, ddl); err != nil {
			return fmt.Errorf("records: clickhouse: adding column %s to records: %w", t.hist, unavailable(err))
		}
	}
	return nil
}

// addColumns adds to table on c the records columns before upTo that it lacks when it holds the
// columns of an earlier version of the records table, in order (its shape a prefix of this
// version's): an
// ALTER that changes no row written (ClickHouse gives old rows the type's default, 0 or the empty string).
// A table of another shape is left as it is, for ensureTable to refuse.
func addColumns(ctx context.Context, c chdriver.Conn, table string, upTo records.Column) error {
	have, _, err := tableShape(ctx, c, table)
	if err != nil || len(have) == 0 {
		return err
	}
	names, kinds := records.SQLColumns()
	n := 0 // the SQL columns of the columns before upTo
	for c := range upTo {
		n += len(c.SQLNames())
	}
	names, kinds = names[:n], kinds[:n]
	if len(have) >= len(names) {
		return nil
	}
	for i, h := range have {
		if h != names[i]+" "+chDialect.Types[kinds[i]] {
			return nil
		}
	}
	for i := len(have); i < len(names); i++ {
		if err := c.Exec(ctx, "ALTER TABLE "+table+" ADD COLUMN "+names[i]+" "+chDialect.Types[kinds[i]]); err != nil {
			return fmt.Errorf("records: clickhouse: adding column %s to %s: %w", names[i], table, unavailable(err))
		}
	}
	return nil
}

// chEnsureRollups makes the table and view of each rollup of rs on c (chRollups: every one),
// each view summing the records of its rollup's layer, or makes anew one of another shape.
func chEnsureRollups(ctx context.Context, c chdriver.Conn, rs []records.Rollup) error {
	for i := range rs {
		if err := chEnsureRollupWhere(ctx, c, &rs[i], chLayerCond(&rs[i])); err != nil {
			return err
		}
	}
	return nil
}

// chEnsureRollupsOf is chEnsureRollups for the rollups rs, as the schema steps before 9 made
// them: their views sum every record (the records had no layer).
func chEnsureRollupsOf(ctx context.Context, c chdriver.Conn, rs []records.Rollup) error {
	for i := range rs {
		if err := chEnsureRollup(ctx, c, &rs[i]); err != nil {
			return err
		}
	}
	return nil
}

// migrate runs on c the steps after its version, recording each, then checks what another
// node or a hand may have changed since, as every open has: the records table's shape (refused
// when it differs, never altered) and the rollups' (made anew: they hold nothing the records do
// not).
func migrate(ctx context.Context, c chdriver.Conn) error {
	if err := checkVersion(ctx, c); err != nil {
		return err
	}
	v, err := schemaVersion(ctx, c)
	if err != nil {
		return err
	}
	for i := int(v); i < int(version()); i++ {
		step := addedStep(uint32(i + 1))
		if i < len(chSteps) {
			step = chSteps[i]
		}
		if err := step(ctx, c); err != nil {
			return err
		}
		if err := writeVersion(ctx, c, uint32(i+1)); err != nil {
			return err
		}
	}
	if err := ensureTable(ctx, c, "records", chLocalEngine); err != nil {
		return err
	}
	return chEnsureRollups(ctx, c, chRollups)
}

// chLocalEngine is the engine of the table that holds records: a MergeTree partitioned by day
// (retention drops whole partitions), sorted by time (periods read a range of it). Both the
// ClickHouse 18.16 tested here and current versions accept it.
const chLocalEngine = "MergeTree PARTITION BY intDiv(time, 86400) ORDER BY time"

// ensureTable creates the table name with the records columns and engine on c when it is
// missing, and checks its shape and engine when it exists.
func ensureTable(ctx context.Context, c chdriver.Conn, name, engine string) error {
	have, e, err := tableShape(ctx, c, name)
	if err != nil {
		return err
	}
	names, kinds := records.SQLColumns()
	want := make([]string, len(names))
	for i, n := range names {
		want[i] = n + " " + chDialect.Types[kinds[i]]
	}
	if e == "" {
		ddl := "CREATE TABLE IF NOT EXISTS " + name + " (" + strings.Join(want, ", ") + ") ENGINE = " + engine
		if err := c.Exec(ctx, ddl); err != nil {
			return fmt.Errorf("records: clickhouse: create %s: %w", name, unavailable(err))
		}
		return nil
	}
	if strings.Join(have, ", ") != strings.Join(want, ", ") {
		return fmt.Errorf("records: clickhouse table %s has another shape than schema version %d (%s; want %s); the service never alters a table: rename or drop it, or use another database",
			name, version(), strings.Join(have, ", "), strings.Join(want, ", "))
	}
	if !strings.HasPrefix(engine, e) {
		return fmt.Errorf("records: clickhouse table %s is a %s table, want %s; the service never alters a table: rename or drop it, or use another database", name, e, engine)
	}
	return nil
}

// schemaVersion returns the schema version in records_version on c (creating that table when
// missing); 0 when none is written.
func schemaVersion(ctx context.Context, c chdriver.Conn) (uint32, error) {
	if err := c.Exec(ctx, "CREATE TABLE IF NOT EXISTS records_version (version UInt32) ENGINE = TinyLog"); err != nil {
		return 0, fmt.Errorf("records: clickhouse: %w", unavailable(err))
	}
	var v uint32
	if err := c.QueryRow(ctx, "SELECT toUInt32(max(version)) FROM records_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("records: clickhouse: %w", unavailable(err))
	}
	return v, nil
}

// checkVersion refuses a schema of a later version than this service's, before anything is
// created or changed.
func checkVersion(ctx context.Context, c chdriver.Conn) error {
	v, err := schemaVersion(ctx, c)
	if err == nil && v > version() {
		err = fmt.Errorf("records: clickhouse records table is of schema version %d, this service uses %d: a newer version of the service wrote it; run that version (on every node), since this one never alters a table of a later version", v, version())
	}
	return err
}

// writeVersion records schema version v in records_version, unless it is there already.
func writeVersion(ctx context.Context, c chdriver.Conn, v uint32) error {
	have, err := schemaVersion(ctx, c)
	if err != nil || have >= v {
		return err
	}
	// An INSERT ... VALUES through Exec waits forever on 18.16: send a block instead.
	b, err := c.PrepareBatch(ctx, "INSERT INTO records_version (version)")
	if err == nil {
		if err = b.Append(v); err == nil {
			err = b.Send()
		}
		b.Close()
	}
	if err != nil {
		return fmt.Errorf("records: clickhouse: %w", unavailable(err))
	}
	return nil
}
