package transport

import (
	"strings"
	"testing"
)

// FuzzNoneMatch: any If-None-Match is read without a panic; the tag matches when the header
// lists it as an element, with W/ or not, before or after any other well-formed elements; and
// a header that neither holds the tag's text nor starts an element with * never matches.
func FuzzNoneMatch(f *testing.F) {
	for _, s := range []string{`"abc"`, `W/"abc", "def"`, `*`, `"a,b", W/"c"`, `"unterminated`, `,,W/,"`, `W/W/"x"`} {
		f.Add(s, "body")
	}
	f.Fuzz(func(t *testing.T, v, body string) {
		tag := etag([]byte(body), false)[0]
		got := noneMatch([]string{v}, tag)
		if got && !strings.Contains(v, tag) && !strings.Contains(v, "*") {
			t.Errorf("noneMatch(%q, %s) = true", v, tag)
		}
		if !strings.Contains(v, `"`) {
			for _, list := range []string{tag, v + ", " + tag, "W/" + tag, `"x", W/` + tag + ", " + `"y"`} {
				if !noneMatch([]string{list}, tag) {
					t.Errorf("noneMatch(%q, %s) = false", list, tag)
				}
			}
		}
	})
}
