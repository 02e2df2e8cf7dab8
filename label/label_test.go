package label_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/fnapi/fnapi/label"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s      string
		reason string // a part of it; "" when s passes
	}{
		{"Traffic", ""},
		{"Trafic réseau – été", ""},
		{"交通量", ""},
		{"حركة المرور", ""},
		{"👩‍💻 ops", ""}, // a zero-width joiner inside an emoji sequence
		{"a\u0301", ""},
		{"\uFFFD written on purpose", ""},
		{"", "visible"},
		{"   ", "visible"},
		{"\u200B\u200B", "visible"},
		{"\u200B \uFEFF\u2060", "visible"},
		{"\u3164", "visible"},
		{"\u0301", "visible"},
		{"nul\x00here", "control characters (U+0000 at byte 3)"},
		{"two\nlines", "control characters (U+000A"},
		{"tab\there", "control"},
		{"c1\u0085", "control"},
		{"del\x7f", "control"},
		{"admin\u202Enimda", "bidirectional formatting characters (U+202E at byte 5)"},
		{"\u2066x\u2069", "bidirectional"},
		{"x\u200F", "bidirectional"},
		{"x\u061C", "bidirectional"},
		{"bad \xff byte", "valid UTF-8 (an invalid byte at 4)"},
	}
	for _, tt := range tests {
		got := label.Check(tt.s)
		if (tt.reason == "") != (got == "") || !strings.Contains(got, tt.reason) {
			t.Errorf("Check(%q) = %q, want %q", tt.s, got, tt.reason)
		}
	}
}

// FuzzCheck checks that whatever Check accepts is valid UTF-8, one line without controls or
// bidirectional formatting, and has something to see.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"Traffic", "", "a\x00b", "x\u202Ey", "\u200B", "é\u0301", "\xff", "👩‍💻"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if label.Check(s) != "" {
			return
		}
		if !utf8.ValidString(s) {
			t.Fatalf("accepted invalid UTF-8 %q", s)
		}
		seen := false
		for _, r := range s {
			if unicode.IsControl(r) || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069) || r == 0x200E || r == 0x200F || r == 0x061C {
				t.Fatalf("accepted %q with %U", s, r)
			}
			if unicode.IsGraphic(r) && !unicode.IsSpace(r) && !unicode.Is(unicode.Mn, r) && !unicode.Is(unicode.Cf, r) {
				seen = true
			}
		}
		if !seen {
			t.Fatalf("accepted %q with nothing to see", s)
		}
	})
}
