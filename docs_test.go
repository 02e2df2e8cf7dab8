package fnapi_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// TestDocsSize keeps the documents a newcomer reads first short (issue 39): the root README
// (what fnapi is, the two commands, a first server, a map) at most 12 KB, the data service's
// (what it is, the demo, the console, where to go next) at most 15 KB; the rest is in docs/
// topic pages. BENCHMARKS.md holds the current figures, each with its command and machine, in at
// most 40 KB: what was tried and did not help belongs in commit bodies.
func TestDocsSize(t *testing.T) {
	t.Parallel()
	for path, limit := range map[string]int64{
		"README.md":                      12 << 10,
		"examples/dataservice/README.md": 15 << 10,
		"BENCHMARKS.md":                  40 << 10,
	} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > limit {
			t.Errorf("%s is %d bytes, more than %d: move detail to a topic page (docs/) or to commit bodies", path, fi.Size(), limit)
		}
	}
}

// TestDocsLinks checks that every relative link of the READMEs, BENCHMARKS.md and the docs/
// pages names a file that exists and, into a Markdown file, a heading it has (GitHub's anchors).
func TestDocsLinks(t *testing.T) {
	t.Parallel()
	files := []string{"README.md", "BENCHMARKS.md", "bench/README.md", "examples/dataservice/README.md"}
	for _, dir := range []string{"docs", "examples/dataservice/docs"} {
		m, err := filepath.Glob(filepath.Join(dir, "*.md"))
		if err != nil || len(m) == 0 {
			t.Fatalf("no pages in %s: %v", dir, err)
		}
		files = append(files, m...)
	}
	for _, file := range files {
		for _, target := range mdLinks(t, file) {
			if regexp.MustCompile(`^[a-z]+:`).MatchString(target) {
				continue // https:, mailto:
			}
			path, anchor, _ := strings.Cut(target, "#")
			dest := file
			if path != "" {
				dest = filepath.Join(filepath.Dir(file), path)
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s links to %s, which does not exist", file, target)
					continue
				}
			}
			if anchor != "" && strings.HasSuffix(dest, ".md") && !mdAnchors(t, dest)[anchor] {
				t.Errorf("%s links to %s, but %s has no heading #%s", file, target, dest, anchor)
			}
		}
	}
}

var (
	mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdCode = regexp.MustCompile("`[^`]*`")
)

// mdLinks returns the targets of the links of a Markdown file, outside code.
func mdLinks(t *testing.T, file string) []string {
	var links []string
	for _, line := range mdLines(t, file) {
		for _, m := range mdLink.FindAllStringSubmatch(mdCode.ReplaceAllString(line, ""), -1) {
			links = append(links, m[1])
		}
	}
	return links
}

// mdAnchors returns the anchors GitHub gives the headings of a Markdown file.
func mdAnchors(t *testing.T, file string) map[string]bool {
	anchors := map[string]bool{}
	for _, line := range mdLines(t, file) {
		if h := strings.TrimLeft(line, "#"); h != line && strings.HasPrefix(h, " ") {
			anchors[strings.Map(func(r rune) rune {
				switch {
				case r == ' ':
					return '-'
				case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
					return unicode.ToLower(r)
				}
				return -1
			}, strings.TrimSpace(h))] = true
		}
	}
	return anchors
}

// mdLines returns the lines of a Markdown file outside fenced code blocks.
func mdLines(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	fenced := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		} else if !fenced {
			lines = append(lines, line)
		}
	}
	return lines
}
