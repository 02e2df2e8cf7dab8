package records_test

import (
	"reflect"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// TestChangesMergeSpans checks that a Watcher hands out the spans touched since its last
// Take, merged where they meet, in order, at most 32 of them (the closest merged), and that a
// closed one collects nothing.
func TestChangesMergeSpans(t *testing.T) {
	t.Parallel()
	var c records.Changes
	w := c.Watch()
	for _, s := range []records.Span{{50, 60}, {10, 20}, {20, 25}, {30, 40}, {35, 52}, {100, 101}} {
		c.Touch(s.From, s.To)
	}
	c.Touch(5, 5) // empty
	want := []records.Span{{10, 25}, {30, 60}, {100, 101}}
	if got := w.Peek(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Peek: %v, want %v", got, want)
	}
	if got := w.Take(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Take: %v, want %v", got, want)
	}
	if got := w.Take(); got != nil {
		t.Fatalf("Take again: %v, want none", got)
	}
	for i := range int64(40) {
		c.Touch(i*100, i*100+1+i) // the gaps shrink as i grows
	}
	got := w.Take()
	if len(got) != 32 || got[0] != (records.Span{0, 1}) || got[31] != (records.Span{3100, 3940}) {
		t.Fatalf("40 spans kept as %d: %v", len(got), got)
	}
	w.Close()
	c.Touch(1, 2)
	if got := w.Take(); got != nil {
		t.Fatalf("a closed watcher collected %v", got)
	}
}
