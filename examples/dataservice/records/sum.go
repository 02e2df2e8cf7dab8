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

// Extreme reports whether s is an extreme rather than a sum: the least (max false) or the
// greatest (max true) non-zero value of its column over a group's records, 0 when none is
// (0 means unknown: it never wins the least). The rows of a group are merged with MergeSum.
func (s Sum) Extreme() (isExtreme, max bool) {
	switch s {
	case SumMinTLSNotAfter:
		return true, false
	case SumMaxTLSNotAfter:
		return true, true
	}
	return false, false
}

// MergeSum returns sum s of two rows of a group merged: AddSum for a sum, the least non-zero
// or the greatest of the two for an extreme (Sum.Extreme).
func MergeSum(s Sum, a, b uint64) uint64 {
	if s < SumMinTLSNotAfter { // the sums come first: inlined, as fast as AddSum
		return AddSum(a, b)
	}
	return mergeExtreme(s, a, b)
}

func mergeExtreme(s Sum, a, b uint64) uint64 {
	switch {
	case s == SumMaxTLSNotAfter:
		return maxOf(a, b)
	case a == 0:
		return b
	case b == 0:
		return a
	}
	return minOf(a, b)
}

func maxOf(a, b uint64) uint64 {
	if a > b {
		return a
	}
	return b
}

func minOf(a, b uint64) uint64 {
	if a < b {
		return a
	}
	return b
}
