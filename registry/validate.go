package registry

import (
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"regexp"
	"unicode/utf8"

	"github.com/invopop/jsonschema"
)

// constraints are the schema keywords of one argument that decoding alone does not enforce.
type constraints struct {
	enum       [][]byte // canonical JSON of each allowed value
	min, max   *big.Float
	xmin, xmax bool // exclusive
	minLen     *uint64
	maxLen     *uint64
	pattern    *regexp.Regexp
	minItems   *uint64
	maxItems   *uint64
}

func constraintsOf(s *jsonschema.Schema) (*constraints, error) {
	c := &constraints{minLen: s.MinLength, maxLen: s.MaxLength, minItems: s.MinItems, maxItems: s.MaxItems}
	has := s.MinLength != nil || s.MaxLength != nil || s.MinItems != nil || s.MaxItems != nil
	for _, e := range s.Enum {
		b, err := canonical(e)
		if err != nil {
			return nil, fmt.Errorf("enum value %v: %w", e, err)
		}
		c.enum = append(c.enum, b)
		has = true
	}
	var err error
	bound := func(n json.Number, excl bool, dst **big.Float, x *bool) {
		if n == "" || err != nil {
			return
		}
		f, _, perr := big.ParseFloat(string(n), 10, 64, big.ToNearestEven)
		if perr != nil {
			err = fmt.Errorf("bound %q: %w", n, perr)
			return
		}
		*dst, *x, has = f, excl, true
	}
	bound(s.Minimum, false, &c.min, &c.xmin)
	bound(s.ExclusiveMinimum, true, &c.min, &c.xmin)
	bound(s.Maximum, false, &c.max, &c.xmax)
	bound(s.ExclusiveMaximum, true, &c.max, &c.xmax)
	if err != nil {
		return nil, err
	}
	if s.Pattern != "" {
		re, err := regexp.Compile(s.Pattern)
		if err != nil {
			return nil, fmt.Errorf("pattern %q: %w", s.Pattern, err)
		}
		c.pattern, has = re, true
	}
	if !has {
		return nil, nil
	}
	return c, nil
}

func canonical(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		return nil, err
	}
	return json.Marshal(x)
}

// check returns the reason raw (already decoded into v) breaks the constraints, or "".
func (c *constraints) check(raw json.RawMessage, v reflect.Value) string {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	if c.enum != nil {
		got, err := canonical(json.RawMessage(raw))
		if err != nil {
			return "not a JSON value"
		}
		ok := false
		for _, e := range c.enum {
			if string(e) == string(got) {
				ok = true
				break
			}
		}
		if !ok {
			return fmt.Sprintf("must be one of %s", enumList(c.enum))
		}
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return c.number(new(big.Float).SetInt64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return c.number(new(big.Float).SetUint64(v.Uint()))
	case reflect.Float32, reflect.Float64:
		return c.number(big.NewFloat(v.Float()))
	case reflect.String:
		n := uint64(utf8.RuneCountInString(v.String()))
		if c.minLen != nil && n < *c.minLen {
			return fmt.Sprintf("must have at least %d characters", *c.minLen)
		}
		if c.maxLen != nil && n > *c.maxLen {
			return fmt.Sprintf("must have at most %d characters", *c.maxLen)
		}
		if c.pattern != nil && !c.pattern.MatchString(v.String()) {
			return fmt.Sprintf("must match %s", c.pattern)
		}
	case reflect.Slice, reflect.Array:
		n := uint64(v.Len())
		if c.minItems != nil && n < *c.minItems {
			return fmt.Sprintf("must have at least %d items", *c.minItems)
		}
		if c.maxItems != nil && n > *c.maxItems {
			return fmt.Sprintf("must have at most %d items", *c.maxItems)
		}
	}
	return ""
}

func (c *constraints) number(n *big.Float) string {
	if c.min != nil {
		if cmp := n.Cmp(c.min); cmp < 0 || (c.xmin && cmp == 0) {
			if c.xmin {
				return fmt.Sprintf("must be greater than %s", c.min.Text('g', -1))
			}
			return fmt.Sprintf("must be at least %s", c.min.Text('g', -1))
		}
	}
	if c.max != nil {
		if cmp := n.Cmp(c.max); cmp > 0 || (c.xmax && cmp == 0) {
			if c.xmax {
				return fmt.Sprintf("must be less than %s", c.max.Text('g', -1))
			}
			return fmt.Sprintf("must be at most %s", c.max.Text('g', -1))
		}
	}
	return ""
}

func enumList(enum [][]byte) string {
	s := ""
	for i, e := range enum {
		if i > 0 {
			s += ", "
		}
		s += string(e)
	}
	return s
}
