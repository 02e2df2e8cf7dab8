package duckdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/records/recordstest"

	"github.com/duckdb/duckdb-go/v2"
)

// TestAppendRollsBack checks what all-or-nothing Ingest rests on: rows appended through the
// appender inside a transaction vanish when the transaction rolls back, even after the
// appender flushed them (more rows than its chunk holds).
func TestAppendRollsBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTemp(t)
	r := records.Record{Time: 1, Protocol: records.UDP, Application: "dns",
		Client: records.Endpoint{IP: netip.MustParseAddr("10.0.0.1")}, Server: records.Endpoint{IP: netip.MustParseAddr("10.0.0.2")}}
	recs := make([]records.Record, 3*duckdb.GetDataChunkCapacity()+1)
	for i := range recs {
		recs[i] = r
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		c := dc.(*duckdb.Conn)
		tx, err := c.BeginTx(ctx, driver.TxOptions{})
		if err != nil {
			return err
		}
		if err := appendRecords(ctx, c, [][]records.Record{recs}, make([]uint64, len(recs))); err != nil {
			return err
		}
		return tx.Rollback()
	})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM records`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("%d rows left after rollback", n)
	}
}

// TestOpenAddsColumns opens a file made by a version without the collector's columns: they are
// added, holding zero for the rows already there, and new batches go in.
func TestOpenAddsColumns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	old, err := sql.Open("duckdb", filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	_, err = old.Exec(`CREATE TABLE records (time BIGINT NOT NULL, protocol UTINYINT NOT NULL,
		application VARCHAR NOT NULL, client_ip_hi UBIGINT NOT NULL, client_ip_lo UBIGINT NOT NULL,
		client_port USMALLINT NOT NULL, client_bytes UBIGINT NOT NULL, client_packets UBIGINT NOT NULL,
		server_ip_hi UBIGINT NOT NULL, server_ip_lo UBIGINT NOT NULL, server_port USMALLINT NOT NULL,
		server_bytes UBIGINT NOT NULL, server_packets UBIGINT NOT NULL);
		INSERT INTO records VALUES (1, 6, 'https', 0, 1, 2, 3, 4, 0, 5, 443, 6, 7)`)
	if err != nil {
		t.Fatal(err)
	}
	old.Close()
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := records.Record{Time: 2, Protocol: records.UDP, Application: "dns",
		Client: records.Endpoint{IP: netip.MustParseAddr("10.0.0.1")}, Server: records.Endpoint{IP: netip.MustParseAddr("10.0.0.2")}}
	if err := s.Ingest(ctx, []records.Record{r}); err != nil {
		t.Fatal(err)
	}
	var n, zero int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE exporter_hi = 0 AND exporter_lo = 0 AND in_if = 0 AND out_if = 0) FROM records`).Scan(&n, &zero); err != nil {
		t.Fatal(err)
	}
	if n != 2 || zero != 2 {
		t.Fatalf("%d rows, %d with zero collector columns; want 2 and 2", n, zero)
	}
}

// TestOpenAddsCaptureColumns opens a file of schema version 4, made before the capture probe's
// columns, holding a record: schema step 5 adds them, the record keeps its counts with zero
// capture sums, and records carrying them go in and read back.
func TestOpenAddsCaptureColumns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	const at = 1_700_000_040
	old := recordstest.Batch(1, at)
	if err := s.Ingest(ctx, old); err != nil {
		t.Fatal(err)
	}
	// The file as version 4 left it: the records table without the capture columns.
	asVersion10(t, s)
	names, _ := records.SQLColumns()
	for _, n := range names[slices.Index(names, records.ColClientRTT.Name()):] {
		if _, err := s.db.ExecContext(ctx, "ALTER TABLE records DROP COLUMN "+n); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.db.ExecContext(ctx, "UPDATE "+schemaTable+" SET version = 4"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = Open(ctx, dir); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	q := &records.Query{Sums: append([]records.Sum{records.SumClientBytes, records.SumRecords}, recordstest.CaptureSums...)}
	read := func() []uint64 {
		var out []uint64
		err := s.Read(ctx, s.Compile(q), at, at+60, func(r *records.Row) error {
			out = slices.Clone(r.Sums)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := read(); got[0] != 10 || got[1] != 1 || slices.ContainsFunc(got[2:], func(v uint64) bool { return v != 0 }) {
		t.Fatalf("the old record reads %v, want client bytes 10, 1 record, zero capture sums", got)
	}
	if err := s.Ingest(ctx, recordstest.CaptureBatch(2, at)); err != nil {
		t.Fatal(err)
	}
	// Record 0: server rtt 40000 µs, 1 sample; record 1: 80000 µs, 2 samples.
	if got := read(); got[1] != 3 || got[4] != 120000 || got[5] != 3 {
		t.Fatalf("after capture records: %v, want 3 records, server rtt 120000 µs over 3 samples", got)
	}
}

// TestOpenAddsContextColumns opens a file of schema version 5, made before the context's
// columns and rollups, holding records: schema step 6 adds the columns (empty in the old rows)
// and the rollups, summed from the records it had, and records carrying a context go in and
// read back by every context key, from the rollups and the records alike.
func TestOpenAddsContextColumns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	const at = 1_700_000_040
	if err := s.Ingest(ctx, recordstest.Batch(3, at)); err != nil {
		t.Fatal(err)
	}
	// The file as version 5 left it: neither the context's columns nor its rollups, nor the
	// histograms of later versions.
	asVersion10(t, s)
	for _, c := range recordstest.HistColumns {
		if _, err := s.db.ExecContext(ctx, "ALTER TABLE records DROP COLUMN "+c.Name()); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range contextRollups {
		if _, err := s.db.ExecContext(ctx, "DROP TABLE "+r.Table); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range step6Columns {
		if _, err := s.db.ExecContext(ctx, "ALTER TABLE records DROP COLUMN "+c.Name()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.db.ExecContext(ctx, "UPDATE "+schemaTable+" SET version = 5"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = Open(ctx, dir); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	q := &records.Query{Groups: []records.Group{{Column: records.ColServerZone}, {Column: records.ColServerASN}},
		Sums: []records.Sum{records.SumClientBytes, records.SumRecords}}
	rows := map[string][2]uint64{} // a group may come in several rows
	err = s.Read(ctx, s.Compile(q), at-at%3600, at-at%3600+3600, func(r *records.Row) error {
		k := fmt.Sprint(r.Keys)
		rows[k] = [2]uint64{rows[k][0] + r.Sums[0], rows[k][1] + r.Sums[1]}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(rows), "map[[{0 0 } {0 0 }]:[30 3]]"; got != want {
		t.Fatalf("the old records read %s by server zone and AS, want %s (no zone, no AS)", got, want)
	}
	recordstest.CheckContext(t, s, 1_700_000_160)
}

// TestSchemaVersions checks the numbered migrations: a new file is at the latest version, a
// file of an earlier version (no records_schema) is brought to it, each step once, and a file
// of a newer version is refused rather than damaged.
func TestSchemaVersions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	version := func(s *Store) int {
		t.Helper()
		var v, n int
		if err := s.db.QueryRowContext(ctx, "SELECT max(version), count(*) FROM "+schemaTable).Scan(&v, &n); err != nil || n != 1 {
			t.Fatalf("records_schema: version %d in %d rows, %v", v, n, err)
		}
		return v
	}
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if v := version(s); v != len(steps) {
		t.Errorf("a new file is at version %d, want %d", v, len(steps))
	}
	// Version 2 with its rollups gone: opening runs steps 3 and 4, which make them.
	if _, err := s.db.ExecContext(ctx, "DROP TABLE records_minute; UPDATE "+schemaTable+" SET version = 2"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = Open(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if v := version(s); v != len(steps) {
		t.Errorf("a file of version 2 is at version %d once opened, want %d", v, len(steps))
	}
	var n int
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM information_schema.tables WHERE table_name = 'records_minute'").Scan(&n); err != nil || n != 1 {
		t.Errorf("records_minute after migrating from version 2: %d tables, %v", n, err)
	}
	if _, err := s.db.ExecContext(ctx, fmt.Sprintf("UPDATE %s SET version = %d", schemaTable, len(steps)+1)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = Open(ctx, dir); err == nil || !strings.Contains(err.Error(), "newer than this program's") {
		if s != nil {
			s.Close()
		}
		t.Errorf("a file of a newer version opened: %v", err)
	}
}

// TestOpenAddsHistograms opens a file of schema version 6, made before the records kept
// histograms, holding capture records: steps 7 and 8 add the columns with each old record's samples
// in the bucket of its average, and records carrying histograms go in and read back.
func TestOpenAddsHistograms(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	const at = 1_700_000_040
	old := recordstest.Averaged(recordstest.CaptureBatch(6, at))
	if err := s.Ingest(ctx, old); err != nil {
		t.Fatal(err)
	}
	// The file as version 6 left it: the records table with the context's columns, without
	// the histograms.
	asVersion10(t, s)
	for _, c := range recordstest.HistColumns {
		if _, err := s.db.ExecContext(ctx, "ALTER TABLE records DROP COLUMN "+c.Name()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.db.ExecContext(ctx, "UPDATE "+schemaTable+" SET version = 6"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = Open(ctx, dir); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	recordstest.CheckHists(t, s, at, old)
	recs := recordstest.CaptureBatch(4, at)
	if err := s.Ingest(ctx, recs); err != nil {
		t.Fatal(err)
	}
	recordstest.CheckHists(t, s, at, append(old, recs...))
}
