package main

import (
	"flag"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/internal/testutil"
)

// TestDocsFlags holds docs/running.md's command line to the flags main.go defines (newFlagSet),
// both ways: each flag has a row in the table of flags (a row may name several: `-cert`,
// `-key`) and a place in the synopsis above it, and the table and the synopsis name no flag the
// service does not define.
func TestDocsFlags(t *testing.T) {
	t.Parallel()
	defined := map[string]bool{}
	newFlagSet(&options{}).VisitAll(func(f *flag.Flag) { defined["-"+f.Name] = true })

	var table []string
	for _, row := range testutil.Table(t, "docs/running.md", "Flag", "Meaning") {
		table = append(table, testutil.Code(row[0])...)
	}
	b, err := os.ReadFile("docs/running.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, _ := strings.Cut(string(b), "## Command line\n\n```\n")
	synopsis, _, _ := strings.Cut(after, "```")
	listed := map[string][]string{
		"the table of flags under ## Command line": table,
		"the synopsis under ## Command line":       synopsisFlags(synopsis),
	}
	for where, flags := range listed {
		for name := range defined {
			if !slices.Contains(flags, name) {
				t.Errorf("main.go defines %s, which docs/running.md's %s lacks", name, where)
			}
		}
		for _, name := range flags {
			if !defined[name] {
				t.Errorf("docs/running.md's %s names %s, which main.go does not define (newFlagSet)", where, name)
			}
		}
	}
}

// synopsisFlags returns the flags a synopsis names: each word that begins with '-', after a
// space or a '['.
func synopsisFlags(s string) []string {
	var flags []string
	for _, m := range regexp.MustCompile(`[\s\[](-[a-z][a-z-]*)`).FindAllStringSubmatch(s, -1) {
		flags = append(flags, m[1])
	}
	return flags
}
