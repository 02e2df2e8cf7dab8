package records_test

import (
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// TestAddSum checks that AddSum saturates at MaxSum and is exact below.
func TestAddSum(t *testing.T) {
	t.Parallel()
	for _, tc := range [][3]uint64{
		{1, 2, 3}, {records.MaxSum - 1, 1, records.MaxSum}, {records.MaxSum, 1, records.MaxSum}, {records.MaxSum - 5, 7, records.MaxSum}, {records.MaxSum, records.MaxSum, records.MaxSum}, {0, 0, 0},
	} {
		if got := records.AddSum(tc[0], tc[1]); got != tc[2] {
			t.Errorf("AddSum(%d, %d) = %d, want %d", tc[0], tc[1], got, tc[2])
		}
	}
}
