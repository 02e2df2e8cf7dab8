package pvql

import (
	"cmp"
	"math"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// eval computes x on s; a division by zero is NaN, which propagates.
func eval(x expr, s *sums) float64 {
	switch x := x.(type) {
	case numberExpr:
		return float64(x)
	case metric:
		if parts := metrics[x].times; parts != nil {
			v := 0.0
			for _, p := range parts {
				if s[p.samples] == 0 {
					return math.NaN()
				}
				v += float64(s[p.sum]) / float64(s[p.samples]) / 1e6
			}
			return v
		}
		var t uint64
		for _, b := range metrics[x].sums {
			t = records.AddSum(t, s[b])
		}
		return float64(t)
	case *binaryExpr:
		l, r := eval(x.l, s), eval(x.r, s)
		switch x.op {
		case '+':
			return l + r
		case '-':
			return l - r
		case '*':
			return l * r
		}
		if r == 0 {
			return math.NaN()
		}
		return l / r
	case *baselineExpr:
		return evalBaseline(x, s)
	case *quantileExpr:
		return evalQuantile(x, s)
	case queueValue:
		return math.Float64frombits(s[x])
	case extremeExpr:
		return evalExtreme(x, s)
	}
	return math.NaN()
}

// finalValue is eval with every non-finite result made NaN (null).
func finalValue(x expr, s *sums) float64 {
	v := eval(x, s)
	if math.IsInf(v, 0) {
		return math.NaN()
	}
	return v
}

// match evaluates a HAVING condition on a group's sums; a comparison with null is false.
func match(f filter, s *sums) bool {
	switch f := f.(type) {
	case *andFilter:
		for _, t := range f.terms {
			if !match(t, s) {
				return false
			}
		}
		return true
	case *orFilter:
		for _, t := range f.terms {
			if match(t, s) {
				return true
			}
		}
		return false
	case *notFilter:
		return !match(f.x, s)
	case *valueFilter:
		v := finalValue(f.x, s)
		if math.IsNaN(v) {
			return false
		}
		switch f.op {
		case opEq:
			return v == f.nums[0]
		case opNe:
			return v != f.nums[0]
		case opLt:
			return v < f.nums[0]
		case opLe:
			return v <= f.nums[0]
		case opGt:
			return v > f.nums[0]
		case opGe:
			return v >= f.nums[0]
		}
		for _, n := range f.nums {
			if v == n {
				return true
			}
		}
	}
	return false
}

// compareValuesDesc orders numbers descending with NaN (null) after every number.
func compareValuesDesc(a, b float64) int {
	switch an, bn := math.IsNaN(a), math.IsNaN(b); {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return cmp.Compare(b, a)
}
