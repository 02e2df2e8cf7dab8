package records

import (
	"context"
	"math"
	"net/netip"
	"reflect"
	"runtime"
	"testing"
)

// openWatched opens a DuckDB store in a temporary directory and a Watcher of its changes.
func openWatched(t *testing.T) (*DuckDB, *Watcher) {
	t.Helper()
	s, err := OpenDuckDB(context.Background(), t.TempDir())
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
func watchedRecord(at int64) Record {
	a := netip.MustParseAddr("10.0.0.1")
	return Record{Time: at, Protocol: TCP, Application: "https", Client: Endpoint{IP: a}, Server: Endpoint{IP: a}}
}

// TestOnlyDuckDBReportsChanges checks that ClickHouse, which other processes may write, does
// not claim to report every change of its records (DuckDB's claim is asserted at compile time).
func TestOnlyDuckDBReportsChanges(t *testing.T) {
	if _, ok := any((*ClickHouse)(nil)).(ChangeReporter); ok {
		t.Error("ClickHouse is a ChangeReporter, but other processes may write its records")
	}
}

// TestDuckDBReportsChanges checks that DuckDB reports the times each batch and each deletion
// touches to its watchers.
func TestDuckDBReportsChanges(t *testing.T) {
	ctx := context.Background()
	s, w := openWatched(t)
	if err := s.Ingest(ctx, []Record{watchedRecord(1000), watchedRecord(940)}); err != nil {
		t.Fatal(err)
	}
	if got := w.Take(); !reflect.DeepEqual(got, []Span{{940, 1001}}) {
		t.Errorf("after an ingest: %v, want [940, 1001)", got)
	}
	if _, err := s.DeleteBefore(ctx, 950); err != nil {
		t.Fatal(err)
	}
	if got := w.Take(); !reflect.DeepEqual(got, []Span{{math.MinInt64, 950}}) {
		t.Errorf("after a deletion: %v, want everything before 950", got)
	}
}

// TestDuckDBReportsBeforeAndAfter checks that DuckDB reports a batch before it is written and
// again after: a reader that took the first report while the batch waited to be committed
// (the write token held here) learns of it again once it is stored.
func TestDuckDBReportsBeforeAndAfter(t *testing.T) {
	s, w := openWatched(t)
	<-s.write
	done := make(chan error)
	go func() { done <- s.Ingest(context.Background(), []Record{watchedRecord(500)}) }()
	var before []Span
	for before == nil {
		before = w.Take() // reported before the write
		runtime.Gosched()
	}
	s.unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := []Span{{500, 501}}
	if after := w.Take(); !reflect.DeepEqual(before, want) || !reflect.DeepEqual(after, want) {
		t.Errorf("reported %v before and %v after, want %v both times", before, after, want)
	}
}
