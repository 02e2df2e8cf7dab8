package pvql

import (
	"cmp"
	"math"
	"strings"
)

// gkey identifies a group: the fields of the statement's keys; unused fields stay zero.
type gkey struct {
	time               int64
	cHi, cLo, sHi, sLo uint64
	cPort, sPort       uint16
	proto              uint8
	app                string
}

// sums holds a group's base sums, indexed by sum.
type sums [numSums]uint64

// groups accumulates the sums of each group, merging the rows of several queries.
type groups struct {
	index map[gkey]int
	keys  []gkey
	sums  []sums
}

func newGroups() *groups { return &groups{index: map[gkey]int{}} }

// at returns the sums of group k, adding the group when new.
func (g *groups) at(k gkey) *sums {
	i, ok := g.index[k]
	if !ok {
		i = len(g.keys)
		g.index[k] = i
		g.keys = append(g.keys, k)
		g.sums = append(g.sums, sums{})
	}
	return &g.sums[i]
}

// eval computes x on s; a division by zero is NaN, which propagates.
func eval(x expr, s *sums) float64 {
	switch x := x.(type) {
	case numberExpr:
		return float64(x)
	case metric:
		var t uint64
		for _, b := range metrics[x].sums {
			t += s[b]
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

// compareKeys orders a and b by the keys in BY order, ascending; time keys are skipped when
// withTime is false.
func compareKeys(keys []key, a, b *gkey, withTime bool) int {
	for _, k := range keys {
		c := 0
		switch k.kind {
		case kTime:
			if withTime {
				c = cmp.Compare(a.time, b.time)
			}
		case kClientIP:
			c = cmp.Or(cmp.Compare(a.cHi, b.cHi), cmp.Compare(a.cLo, b.cLo))
		case kServerIP:
			c = cmp.Or(cmp.Compare(a.sHi, b.sHi), cmp.Compare(a.sLo, b.sLo))
		case kClientPort:
			c = cmp.Compare(a.cPort, b.cPort)
		case kServerPort:
			c = cmp.Compare(a.sPort, b.sPort)
		case kProtocol:
			c = cmp.Compare(a.proto, b.proto)
		case kApplication:
			c = strings.Compare(a.app, b.app)
		}
		if c != 0 {
			return c
		}
	}
	return 0
}
