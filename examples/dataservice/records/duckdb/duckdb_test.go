package duckdb_test

import (
	"context"
	"errors"
	"net/netip"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records/duckdb"
	"github.com/fnapi/fnapi/examples/dataservice/records/recordstest"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

func openStore(t testing.TB, dir string) *duckdb.Store {
	t.Helper()
	s, err := duckdb.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// readAll returns every stored record, by time.
func readAll(t testing.TB, s *duckdb.Store) []records.Record {
	t.Helper()
	rows, err := s.DB().QueryContext(context.Background(), `SELECT time, protocol, application,
		client_ip_hi, client_ip_lo, client_port, client_bytes, client_packets,
		server_ip_hi, server_ip_lo, server_port, server_bytes, server_packets,
		exporter_hi, exporter_lo, in_if, out_if
		FROM records ORDER BY time`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []records.Record
	for rows.Next() {
		var r records.Record
		var chi, clo, shi, slo, ehi, elo uint64
		if err := rows.Scan(&r.Time, &r.Protocol, &r.Application,
			&chi, &clo, &r.Client.Port, &r.Client.Bytes, &r.Client.Packets,
			&shi, &slo, &r.Server.Port, &r.Server.Bytes, &r.Server.Packets,
			&ehi, &elo, &r.InIf, &r.OutIf); err != nil {
			t.Fatal(err)
		}
		r.Client.IP, r.Server.IP = records.AddrFromHalves(chi, clo), records.AddrFromHalves(shi, slo)
		if ehi != 0 || elo != 0 {
			r.Exporter = records.AddrFromHalves(ehi, elo)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func countRows(t testing.TB, s *duckdb.Store) int64 {
	t.Helper()
	var n int64
	if err := s.DB().QueryRowContext(context.Background(), `SELECT count(*) FROM records`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestDuckDBRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := openStore(t, dir)
	want := recordstest.Sample(3000, 1700000000)
	ctx := context.Background()
	if err := s.Ingest(ctx, want[:1000]); err != nil {
		t.Fatal(err)
	}
	if err := s.Ingest(ctx, want[1000:]); err != nil {
		t.Fatal(err)
	}
	if err := s.Ingest(ctx, nil); err != nil {
		t.Fatalf("Ingest(nil) = %v", err)
	}
	if got := readAll(t, s); !slices.EqualFunc(got, want, func(a, b records.Record) bool { return reflect.DeepEqual(a, b) }) {
		t.Fatalf("read back %d records, differing from the %d written", len(got), len(want))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, dir)
	defer s.Close()
	if got := readAll(t, s); !slices.EqualFunc(got, want, func(a, b records.Record) bool { return reflect.DeepEqual(a, b) }) {
		t.Fatalf("after reopening: %d records, differing from the %d written", len(got), len(want))
	}
	if got, want := filepath.Join(dir, duckdb.FileName), filepath.Join(dir, "records.duckdb"); got != want {
		t.Errorf("file %s, want %s", got, want)
	}
}

func TestDuckDBIngestAllOrNothing(t *testing.T) {
	t.Parallel()
	s := openStore(t, t.TempDir())
	defer s.Close()
	ctx := context.Background()
	tests := []struct {
		name  string
		edit  func(*records.Record)
		field string
	}{
		{"invalid address", func(r *records.Record) { r.Server.IP = netip.Addr{} }, "server.ip"},
		{"too many bytes", func(r *records.Record) { r.Client.Bytes = records.MaxCount + 1 }, "client.bytes"},
		{"before 1970", func(r *records.Record) { r.Time = -1 }, "time"},
		{"empty application", func(r *records.Record) { r.Application = "" }, "application"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			batch := recordstest.Sample(5000, 1700000000)
			tt.edit(&batch[4321])
			err := s.Ingest(ctx, batch)
			var be *records.BatchError
			var re *records.RecordError
			if !errors.As(err, &be) || be.Index != 4321 || !errors.As(err, &re) || re.Field != tt.field {
				t.Fatalf("Ingest = %v, want a *BatchError at 4321 on %s", err, tt.field)
			}
			if n := countRows(t, s); n != 0 {
				t.Fatalf("%d records stored by a failed batch", n)
			}
		})
	}
	t.Run("cancelled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if err := s.Ingest(cctx, recordstest.Sample(5000, 1700000000)); !errors.Is(err, context.Canceled) {
			t.Fatalf("Ingest with a cancelled context = %v", err)
		}
		if n := countRows(t, s); n != 0 {
			t.Fatalf("%d records stored by a cancelled batch", n)
		}
	})
}

func TestDuckDBRetention(t *testing.T) {
	t.Parallel()
	s := openStore(t, t.TempDir())
	defer s.Close()
	ctx := context.Background()
	// One record a minute over 10 hours ending at now.
	now := time.Unix(1700036000, 0)
	batch := recordstest.Sample(600, 0)
	for i := range batch {
		batch[i].Time = now.Unix() - int64(600-i)*60
	}
	if err := s.Ingest(ctx, batch); err != nil {
		t.Fatal(err)
	}
	n, err := records.Retain(ctx, s, 0, now)
	if err != nil || n != 0 {
		t.Fatalf("Retain(0) = %d, %v; want nothing deleted", n, err)
	}
	n, err = records.Retain(ctx, s, 2*time.Hour, now)
	if err != nil || n != 480 {
		t.Fatalf("Retain(2h) = %d, %v; want 480 deleted", n, err)
	}
	got := readAll(t, s)
	if len(got) != 120 || got[0].Time != now.Unix()-7200 {
		t.Fatalf("after Retain(2h): %d records from %d, want 120 from %d", len(got), got[0].Time, now.Unix()-7200)
	}
	if n, err := s.DeleteBefore(ctx, 0); err != nil || n != 0 {
		t.Fatalf("DeleteBefore(0) = %d, %v", n, err)
	}
}

func TestDuckDBConcurrentUse(t *testing.T) {
	t.Parallel()
	s := openStore(t, t.TempDir())
	defer s.Close()
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 4 {
		wg.Go(func() {
			for i := range 5 {
				if err := s.Ingest(ctx, recordstest.Sample(500, int64(1700000000+w*100000+i*1000))); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Go(func() {
		for range 5 {
			if _, err := s.DeleteBefore(ctx, 1); err != nil {
				errs <- err
			}
			var n int64
			if err := s.DB().QueryRowContext(ctx, `SELECT count(*) FROM records`).Scan(&n); err != nil {
				errs <- err
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := countRows(t, s); n != 4*5*500 {
		t.Errorf("%d records, want %d", n, 4*5*500)
	}
}

// TestDuckDBConcurrentBatchesStandAlone: of batches ingested at once (and so committed in
// groups), each bad one fails alone and each good one is stored whole.
func TestDuckDBConcurrentBatchesStandAlone(t *testing.T) {
	t.Parallel()
	s := openStore(t, t.TempDir())
	defer s.Close()
	const calls, size = 8, 1000
	errs := make([]error, calls)
	var wg sync.WaitGroup
	for i := range calls {
		batch := recordstest.Sample(size, 1700000000+int64(i*size))
		if i%2 == 1 {
			batch[size-1].Server.IP = netip.Addr{}
		}
		wg.Go(func() { errs[i] = s.Ingest(context.Background(), batch) })
	}
	wg.Wait()
	for i, err := range errs {
		var be *records.BatchError
		if bad := i%2 == 1; bad != errors.As(err, &be) {
			t.Errorf("batch %d: %v", i, err)
		}
	}
	got := readAll(t, s)
	var want []records.Record
	for i := 0; i < calls; i += 2 {
		want = append(want, recordstest.Sample(size, 1700000000+int64(i*size))...)
	}
	if !slices.EqualFunc(got, want, func(a, b records.Record) bool { return reflect.DeepEqual(a, b) }) {
		t.Fatalf("stored %d records, want the %d of the good batches", len(got), len(want))
	}
}
