package clickhouse_test

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records/clickhouse"

	chdriver "github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// count returns how many records r holds, and is the error of the read.
func count(r records.Reader) (int64, error) {
	var n int64
	q := &records.Query{Sums: []records.Sum{records.SumRecords}}
	err := r.Read(context.Background(), r.Compile(q), 0, 1<<40, func(row *records.Row) error {
		n += int64(row.Sums[0])
		return nil
	})
	return n, err
}

func mustCount(t *testing.T, r records.Reader) int64 {
	t.Helper()
	n, err := count(r)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// rawConn connects to srv with the driver alone, to do what the store never does.
func rawConn(t *testing.T, srv *testenv.ClickHouseServer) chdriver.Conn {
	return clickhouse.RawClickHouse(t, srv.URL)
}

// batch makes n valid records at time at.
func batch(n int, at int64) []records.Record {
	out := make([]records.Record, n)
	for i := range out {
		out[i] = records.Record{Time: at, Protocol: records.TCP, Application: "https",
			Client: records.Endpoint{IP: netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}), Port: 40000, Bytes: 10, Packets: 1},
			Server: records.Endpoint{IP: netip.MustParseAddr("2001:db8::1"), Port: 443, Bytes: 100, Packets: 2}}
	}
	return out
}

// TestClickHouseCluster checks that records written through the Distributed table land on
// both shards, each keeping a part, and read back in full.
func TestClickHouseCluster(t *testing.T) {
	shards := testenv.ClickHouseCluster(t, 2)
	s := clickhouse.OpenClickHouseTest(t, shards[0].URL, testenv.ClickHouseClusterName)
	if err := s.Ingest(context.Background(), batch(1000, 1_700_000_000)); err != nil {
		t.Fatal(err)
	}
	if n := mustCount(t, s); n != 1000 {
		t.Fatalf("%d records read through the Distributed table, want 1000", n)
	}
	var sum int64
	for i, sh := range shards {
		n := mustCount(t, clickhouse.OpenClickHouseTest(t, sh.URL, ""))
		if n == 0 {
			t.Errorf("shard %d holds no record", i+1)
		}
		sum += n
	}
	if sum != 1000 {
		t.Errorf("the shards hold %d records, want 1000", sum)
	}
}

// TestClickHouseRetention checks that retention drops the day partitions wholly before the
// limit, and only those.
func TestClickHouseRetention(t *testing.T) {
	s := clickhouse.OpenClickHouseTest(t, testenv.ClickHouse(t).URL, "")
	ctx := context.Background()
	const day = 86400
	base := int64(19_000) * day
	for d := range int64(3) {
		if err := s.Ingest(ctx, batch(10+int(d), base+d*day+3600)); err != nil {
			t.Fatal(err)
		}
	}
	n, err := records.Retain(ctx, s, 24*time.Hour, time.Unix(base+3*day+7200, 0))
	if err != nil || n != 10+11 {
		t.Fatalf("Retain = %d, %v; want the 21 records of the first two days", n, err)
	}
	if n := mustCount(t, s); n != 12 {
		t.Fatalf("%d records left, want the 12 of the last day", n)
	}
}

// TestClickHouseBadBatch checks that a batch with a bad record stores nothing.
func TestClickHouseBadBatch(t *testing.T) {
	s := clickhouse.OpenClickHouseTest(t, testenv.ClickHouse(t).URL, "")
	recs := batch(100, 1_700_000_000)
	recs[42].Application = "Not Lower"
	var be *records.BatchError
	if err := s.Ingest(context.Background(), recs); !errors.As(err, &be) || be.Index != 42 {
		t.Fatalf("Ingest = %v, want a BatchError at 42", err)
	}
	if n := mustCount(t, s); n != 0 {
		t.Fatalf("%d records stored from a refused batch", n)
	}
}

// TestClickHouseDown checks that with the server killed, Ingest and Read fail with
// ErrUnavailable, and that the same store works again once the server is back.
func TestClickHouseDown(t *testing.T) {
	srv := testenv.ClickHouse(t)
	s := clickhouse.OpenClickHouseTest(t, srv.URL, "")
	if err := s.Ingest(context.Background(), batch(10, 1_700_000_000)); err != nil {
		t.Fatal(err)
	}
	checkDown(t, s, srv)
	if n := mustCount(t, s); n != 20 {
		t.Fatalf("%d records after the server came back, want 20", n)
	}
}

// checkDown stops srv, expects Ingest and Read of s to fail with ErrUnavailable, starts srv
// again and expects an Ingest of 10 records to succeed.
func checkDown(t *testing.T, s *clickhouse.Store, srv *testenv.ClickHouseServer) {
	t.Helper()
	ctx := context.Background()
	srv.Stop()
	if err := s.Ingest(ctx, batch(10, 1_700_000_000)); !errors.Is(err, records.ErrUnavailable) {
		t.Fatalf("Ingest with the server down = %v, want ErrUnavailable", err)
	}
	if _, err := count(s); !errors.Is(err, records.ErrUnavailable) {
		t.Fatalf("Read with the server down = %v, want ErrUnavailable", err)
	}
	srv.Start()
	if err := s.Ingest(ctx, batch(10, 1_700_000_000)); err != nil {
		t.Fatalf("Ingest after the server came back: %v", err)
	}
}

// TestClickHouseKilledMidInsert kills the server while a batch of one day is on its way, at a
// few moments of it: after a restart the batch is there in full or not at all, and in full when
// Ingest said so, and the rollup counts what the records hold.
func TestClickHouseKilledMidInsert(t *testing.T) {
	srv := testenv.ClickHouse(t)
	s := clickhouse.OpenClickHouseTest(t, srv.URL, "")
	const n = 300_000
	var want int64
	for _, delay := range []time.Duration{50 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond} {
		done := make(chan error, 1)
		go func() { done <- s.Ingest(context.Background(), batch(n, 1_700_000_000)) }()
		time.Sleep(delay) // not a wait: the moment of the insert to kill the server at
		srv.Stop()
		err := <-done
		srv.Start()
		got := mustCount(t, s)
		// The rollup answered got; the records by a key it does not hold must agree.
		var fromRecords int64
		q := &records.Query{Groups: []records.Group{{Column: records.ColClientPort}}, Sums: []records.Sum{records.SumRecords}}
		if err := s.Read(context.Background(), s.Compile(q), 0, 1<<40, func(r *records.Row) error {
			fromRecords += int64(r.Sums[0])
			return nil
		}); err != nil || fromRecords != got {
			t.Fatalf("killed after %v: %d records counted by the rollup, %d by the records (%v)", delay, got, fromRecords, err)
		}
		switch {
		case got != want && got != want+n:
			t.Fatalf("killed after %v: %d records, want %d or %d: a partial batch", delay, got, want, want+n)
		case err == nil && got != want+n:
			t.Fatalf("killed after %v: Ingest acknowledged the batch, %d of its records survived", delay, got-want)
		}
		t.Logf("killed after %v: Ingest: %v; batch kept: %v", delay, err, got == want+n)
		want = got
	}
}

// TestClickHouseShardDown checks that a cluster with one shard killed (not the server of the
// URL) answers ErrUnavailable, and works again once the shard is back. Of the batch sent while
// it was down, the share of the shard that was up may be kept (the error said the batch failed).
func TestClickHouseShardDown(t *testing.T) {
	shards := testenv.ClickHouseCluster(t, 2)
	s := clickhouse.OpenClickHouseTest(t, shards[0].URL, testenv.ClickHouseClusterName)
	checkDown(t, s, shards[1])
	n := mustCount(t, s)
	if n < 10 || n > 20 {
		t.Fatalf("%d records after the shard came back, want the 10 sent then and at most 10 more", n)
	}
	t.Logf("%d of the 10 records sent while a shard was down were kept", n-10)
}

// TestClickHouseOneBlockPerBatch checks what all-or-nothing rests on: a batch arrives as one
// block, written as one part per day it spans (merges stopped, so parts stay as inserted).
func TestClickHouseOneBlockPerBatch(t *testing.T) {
	srv := testenv.ClickHouse(t)
	s := clickhouse.OpenClickHouseTest(t, srv.URL, "")
	ctx := context.Background()
	conn := rawConn(t, srv)
	if err := conn.Exec(ctx, "SYSTEM STOP MERGES"); err != nil {
		t.Fatal(err)
	}
	parts := func() uint64 {
		var n uint64
		if err := conn.QueryRow(ctx, "SELECT toUInt64(count()) FROM system.parts WHERE table = 'records' AND active").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if err := s.Ingest(ctx, batch(100_000, 1_700_000_000)); err != nil {
		t.Fatal(err)
	}
	if n := parts(); n != 1 {
		t.Fatalf("a batch of one day made %d parts, want 1", n)
	}
	twoDays := append(batch(10, 1_700_000_000), batch(10, 1_700_000_000+86400)...)
	if err := s.Ingest(ctx, twoDays); err != nil {
		t.Fatal(err)
	}
	if n := parts(); n != 3 {
		t.Fatalf("a batch of two days made %d parts, want 2 more", n-1)
	}
}

// TestClickHouseURL checks that a URL that is not clickhouse:// is refused, and that no
// error repeats a password.
func TestClickHouseURL(t *testing.T) {
	for _, u := range []string{"postgres://u:pw-secret@127.0.0.1:1/db", "clickhouse://u:pw-secret@127.0.0.1:1/db",
		"clickhouse://u:pw-secret%zz@127.0.0.1:1/db", "127.0.0.1:9000"} {
		_, err := clickhouse.Open(context.Background(), u, "")
		if err == nil || strings.Contains(err.Error(), "pw-secret") {
			t.Errorf("Open(%q) = %v", u, err)
		}
	}
}
