// Package label checks the names and titles people give to things (user names, API key
// names, dashboard and widget titles): text that other people read, in lists, logs and
// audit trails, where hidden characters deceive.
//
// Check refuses text that is not valid UTF-8, that holds a control character (NUL, tab, line
// breaks, C1 controls: a name is one line), or a bidirectional formatting character (the
// embeddings, overrides and isolates U+202A to U+202E and U+2066 to U+2069, and the marks
// U+200E, U+200F and U+061C, which can make a name read backwards: "Trojan Source"), and text
// made only of invisible characters (spaces, zero-width and other format characters, blank
// fillers, and code points with no glyph: unassigned or private use), which shows as nothing. Letters and marks of every script, emoji and inner
// zero-width joiners pass.
package label

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// Check returns why s cannot be a name or title, or "" when it can. The reason completes the
// sentence "<the argument> ...", such as "must not hold control characters (U+0000 at byte 3)".
func Check(s string) string {
	visible := false
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !validAt(s, i):
			return fmt.Sprintf("must be valid UTF-8 (an invalid byte at %d)", i)
		case unicode.IsControl(r):
			return fmt.Sprintf("must not hold control characters (%U at byte %d)", r, i)
		case bidi(r):
			return fmt.Sprintf("must not hold bidirectional formatting characters (%U at byte %d)", r, i)
		case unicode.IsGraphic(r) && !invisible(r):
			visible = true
		}
	}
	if !visible {
		return "must hold a visible character"
	}
	return ""
}

// validAt reports whether the U+FFFD at byte i of s was written as such, not an invalid byte.
func validAt(s string, i int) bool {
	_, size := utf8.DecodeRuneInString(s[i:])
	return size == 3
}

// bidi reports whether r is a bidirectional formatting character.
func bidi(r rune) bool {
	return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 || r == 0x200E || r == 0x200F || r == 0x061C
}

// invisible reports whether r shows as nothing: a space, a format character (zero-width
// space, joiners, word joiner, byte order mark...), a blank filler.
func invisible(r rune) bool {
	switch r {
	case 0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800, 0x034F, 0x180E:
		return true
	}
	return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r)
}
