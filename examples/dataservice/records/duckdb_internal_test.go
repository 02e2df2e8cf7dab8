package records

import (
	"context"
	"database/sql/driver"
	"net/netip"
	"testing"

	"github.com/duckdb/duckdb-go/v2"
)

// TestAppendRollsBack checks what all-or-nothing Ingest rests on: rows appended through the
// appender inside a transaction vanish when the transaction rolls back, even after the
// appender flushed them (more rows than its chunk holds).
func TestAppendRollsBack(t *testing.T) {
	ctx := context.Background()
	s, err := OpenDuckDB(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := Record{Time: 1, Protocol: UDP, Application: "dns",
		Client: Endpoint{IP: netip.MustParseAddr("10.0.0.1")}, Server: Endpoint{IP: netip.MustParseAddr("10.0.0.2")}}
	recs := make([]Record, 3*duckdb.GetDataChunkCapacity()+1)
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
		if err := appendRecords(ctx, c, recs); err != nil {
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
