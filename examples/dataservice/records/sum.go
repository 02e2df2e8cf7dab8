package records

import (
	"math"
	"math/bits"
)

// MaxSum is the largest sum a store answers: a sum of counts (bytes, packets, records) over a
// group and a period is exact below it and saturates at it, on every engine and rollup, so
// that no choice of counts wraps a total around to a small number, nor makes a query fail. A
// record holds at most MaxCount a side, so 2,049 records can reach it; real traffic cannot: 1
// Tbit/s sustained for 4.6 years sums to less. A sum that reads MaxSum means "at least MaxSum".
const MaxSum = math.MaxUint64

// MaxSumSQL is MaxSum as an SQL literal.
const MaxSumSQL = "18446744073709551615"

// AddSum returns a + b, saturated at MaxSum: what a caller adding the sums of several Rows of a
// group (Reader.Read) does to stay exact or saturated as the stores are.
func AddSum(a, b uint64) uint64 {
	s, carry := bits.Add64(a, b, 0)
	if carry != 0 {
		return MaxSum
	}
	return s
}
