package capture_test

import (
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/capture"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// TestHTTPStringsHours checks HTTPStrings's hours: a later hour starts afresh, and a record of
// an earlier hour counts in the latest hour's strings, so that records alternating between two
// hours find no more room than the bound.
func TestHTTPStringsHours(t *testing.T) {
	t.Parallel()
	s := capture.NewHTTPStrings(1, 1, nil)
	for i, tc := range []struct {
		hour     int64
		in, want records.HTTP
		leftOut  int
	}{
		{10, records.HTTP{Method: "GET", Host: "a", Path: "/a"}, records.HTTP{Method: "GET", Host: "a", Path: "/a"}, 0},
		{10, records.HTTP{Host: "b", Path: "/b"}, records.HTTP{Path: capture.HTTPOther}, 2},
		{11, records.HTTP{Host: "b", Path: "/b"}, records.HTTP{Host: "b", Path: "/b"}, 0},
		{10, records.HTTP{Host: "c", Path: "/c"}, records.HTTP{Path: capture.HTTPOther}, 2},
		{10, records.HTTP{Host: "b", Path: "/b", Status: 200}, records.HTTP{Host: "b", Path: "/b", Status: 200}, 0},
		{11, records.HTTP{Method: capture.HTTPOther}, records.HTTP{Method: capture.HTTPOther}, 0},
	} {
		h := tc.in
		if n := s.Bound(tc.hour, &h); h != tc.want || n != tc.leftOut {
			t.Errorf("%d: Bound(%d, %+v) = %+v, %d left out; want %+v, %d", i, tc.hour, tc.in, h, n, tc.want, tc.leftOut)
		}
	}
}
