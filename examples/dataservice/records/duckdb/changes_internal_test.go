package duckdb

import (
	"context"
	"math"
	"net/netip"
	"reflect"
	"runtime"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// openWatched opens a DuckDB store in a temporary directory and a Watcher of its changes.
func openWatched(t *testing.T) (*Store, *records.Watcher) {
	t.Helper()
	s, err := Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := s.Changes().Watch()
	t.Cleanup(func() {
		w.Close()
		s.Close()
	})
	return s, w
}

// watchedRecord is a valid record at time at.
func watchedRecord(at int64) records.Record {
	a := netip.MustParseAddr("10.0.0.1")
	return records.Record{Time: at, Protocol: records.TCP, Application: "https", Client: records.Endpoint{IP: a}, Server: records.Endpoint{IP: a}}
}

// TestDuckDBReportsChanges checks that DuckDB reports the times each batch and each deletion
// touches to its watchers.
func TestDuckDBReportsChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, w := openWatched(t)
	if err := s.Ingest(ctx, []records.Record{watchedRecord(1000), watchedRecord(940)}); err != nil {
		t.Fatal(err)
	}
	if got := w.Take(); !reflect.DeepEqual(got, []records.Span{{From: 940, To: 1001}}) {
		t.Errorf("after an ingest: %v, want [940, 1001)", got)
	}
	if _, err := s.DeleteBefore(ctx, 950); err != nil {
		t.Fatal(err)
	}
	if got := w.Take(); !reflect.DeepEqual(got, []records.Span{{From: math.MinInt64, To: 950}}) {
		t.Errorf("after a deletion: %v, want everything before 950", got)
	}
}

// TestDuckDBReportsBeforeAndAfter checks that DuckDB reports a batch before it is written and
// again after: a reader that took the first report while the batch waited to be committed
// (the write token held here) learns of it again once it is stored.
func TestDuckDBReportsBeforeAndAfter(t *testing.T) {
	t.Parallel()
	s, w := openWatched(t)
	<-s.write
	done := make(chan error)
	go func() { done <- s.Ingest(context.Background(), []records.Record{watchedRecord(500)}) }()
	var before []records.Span
	for before == nil {
		before = w.Take() // reported before the write
		runtime.Gosched()
	}
	s.unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := []records.Span{{From: 500, To: 501}}
	if after := w.Take(); !reflect.DeepEqual(before, want) || !reflect.DeepEqual(after, want) {
		t.Errorf("reported %v before and %v after, want %v both times", before, after, want)
	}
}
