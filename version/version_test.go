package version_test

import (
	"errors"
	"testing"

	"github.com/fnapi/fnapi/version"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want version.Version
		ok   bool
	}{
		{"1.0", version.Version{Major: 1}, true},
		{"0.1", version.Version{Minor: 1}, true},
		{"12.34", version.Version{Major: 12, Minor: 34}, true},
		{"2147483647.0", version.Version{Major: 2147483647}, true},
		{"2147483648.0", version.Version{}, false},
		{"1", version.Version{}, false},
		{"1.0.0", version.Version{}, false},
		{"01.0", version.Version{}, false},
		{"1.-1", version.Version{}, false},
		{"+1.0", version.Version{}, false},
		{" 1.0", version.Version{}, false},
		{"v1.0", version.Version{}, false},
		{".", version.Version{}, false},
		{"", version.Version{}, false},
		{"1.0x", version.Version{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := version.Parse(tt.in)
			if tt.ok != (err == nil) {
				t.Fatalf("Parse(%q) error = %v, want ok=%v", tt.in, err, tt.ok)
			}
			if err != nil && !errors.Is(err, version.ErrSyntax) {
				t.Errorf("error %v does not wrap ErrSyntax", err)
			}
			if got != tt.want {
				t.Errorf("Parse(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestCompare(t *testing.T) {
	t.Parallel()
	order := []string{"0.1", "0.9", "0.10", "1.0", "1.1", "2.0", "10.0"}
	for i, a := range order {
		for j, b := range order {
			va, vb := version.MustParse(a), version.MustParse(b)
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := va.Compare(vb); got != want {
				t.Errorf("%s.Compare(%s) = %d, want %d", a, b, got, want)
			}
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"1.0", "0.1", "10.20", "1", "a.b", "01.1", "99999999999.1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := version.Parse(s)
		if err != nil {
			return
		}
		if v.String() != s {
			t.Fatalf("Parse(%q).String() = %q; a parsed version must print as its input", s, v.String())
		}
		if v.Major < 0 || v.Minor < 0 {
			t.Fatalf("Parse(%q) = %v: negative component", s, v)
		}
	})
}
