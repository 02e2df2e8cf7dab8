package records

import (
	"context"
	"net/netip"
	"reflect"
	"runtime"
	"testing"
)

// TestDuckDBReportsBeforeAndAfter checks that DuckDB reports a batch before it is written and
// again after: a reader that took the first report while the batch waited to be committed
// (the write token held here) learns of it again once it is stored.
func TestDuckDBReportsBeforeAndAfter(t *testing.T) {
	ctx := context.Background()
	s, err := OpenDuckDB(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w := s.Changes().Watch()
	defer w.Close()
	a := netip.MustParseAddr("10.0.0.1")
	recs := []Record{{Time: 500, Protocol: TCP, Application: "https", Client: Endpoint{IP: a}, Server: Endpoint{IP: a}}}
	<-s.write
	done := make(chan error)
	go func() { done <- s.Ingest(ctx, recs) }()
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
