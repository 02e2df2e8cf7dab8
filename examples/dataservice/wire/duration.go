package wire

import (
	"errors"
	"math"
	"strconv"
	"time"
)

// Day and Week are the units d and w of configuration durations.
const (
	Day  = 24 * time.Hour
	Week = 7 * Day
)

// maxDurationDigits bounds the number in a duration, so that no value overflows.
const maxDurationDigits = 9

// errDuration is the reason a duration string is refused.
var errDuration = errors.New(`must be a duration: digits and one unit of s, m, h, d or w, such as "90s", "2h" or "30d"`)

// errDurationRange is the reason a duration too long to represent is refused.
var errDurationRange = errors.New("must be a duration of at most 15250w (about 292 years)")

// ParseDuration parses a configuration duration: a whole number of at most 9 digits and one
// unit, s, m, h, d (24 h) or w (7 d), such as "90s", "2h" or "30d". Nothing else is accepted:
// no sign, no space, no fraction, no second unit, nothing past about 292 years.
func ParseDuration(s string) (time.Duration, error) {
	if len(s) < 2 || len(s)-1 > maxDurationDigits {
		return 0, errDuration
	}
	var unit time.Duration
	switch s[len(s)-1] {
	case 's':
		unit = time.Second
	case 'm':
		unit = time.Minute
	case 'h':
		unit = time.Hour
	case 'd':
		unit = Day
	case 'w':
		unit = Week
	default:
		return 0, errDuration
	}
	digits := s[:len(s)-1]
	for i := range len(digits) {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, errDuration
		}
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, errDuration
	}
	if n > int64(math.MaxInt64/unit) {
		return 0, errDurationRange
	}
	return time.Duration(n) * unit, nil
}

// FormatDuration writes d, rounded down to whole seconds, in the largest unit that divides it
// exactly: 90*time.Second is "90s", 48*time.Hour is "2d". A negative d is "0s".
func FormatDuration(d time.Duration) string {
	if d < time.Second {
		return "0s"
	}
	s := int64(d / time.Second)
	for _, u := range []struct {
		secs int64
		name string
	}{{604800, "w"}, {86400, "d"}, {3600, "h"}, {60, "m"}} {
		if s%u.secs == 0 {
			return strconv.FormatInt(s/u.secs, 10) + u.name
		}
	}
	return strconv.FormatInt(s, 10) + "s"
}
