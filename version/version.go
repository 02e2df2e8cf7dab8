package version

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Version is an API version MAJOR.MINOR. The zero value is 0.0.
type Version struct {
	Major, Minor int
}

// ErrSyntax is returned by Parse for text that is not MAJOR.MINOR.
var ErrSyntax = errors.New("version: not of the form MAJOR.MINOR")

// maxPart bounds each component so that versions stay plain numbers.
const maxPart = 1<<31 - 1

// Parse parses "MAJOR.MINOR", two decimal numbers without sign, leading zeros or spaces
// ("1.0", "0.12"). Anything else returns an error wrapping ErrSyntax.
func Parse(s string) (Version, error) {
	major, minor, ok := strings.Cut(s, ".")
	if !ok {
		return Version{}, fmt.Errorf("%w: %q", ErrSyntax, s)
	}
	a, okA := part(major)
	b, okB := part(minor)
	if !okA || !okB {
		return Version{}, fmt.Errorf("%w: %q", ErrSyntax, s)
	}
	return Version{Major: a, Minor: b}, nil
}

func part(s string) (int, bool) {
	if s == "" || len(s) > 10 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n > maxPart {
		return 0, false
	}
	return int(n), true
}

// MustParse is like Parse but panics on an error. It is meant for constants in set-up code.
func MustParse(s string) Version {
	v, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return v
}

// String returns "MAJOR.MINOR".
func (v Version) String() string {
	return strconv.Itoa(v.Major) + "." + strconv.Itoa(v.Minor)
}

// Compare returns -1, 0 or +1 as v is older than, the same as, or newer than w.
func (v Version) Compare(w Version) int {
	if v.Major != w.Major {
		return cmp.Compare(v.Major, w.Major)
	}
	return cmp.Compare(v.Minor, w.Minor)
}

// Less reports whether v is older than w.
func (v Version) Less(w Version) bool { return v.Compare(w) < 0 }

// MarshalText encodes v as "MAJOR.MINOR", so that versions are JSON strings.
func (v Version) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// UnmarshalText parses "MAJOR.MINOR".
func (v *Version) UnmarshalText(b []byte) error {
	p, err := Parse(string(b))
	if err != nil {
		return err
	}
	*v = p
	return nil
}
