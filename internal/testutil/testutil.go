// Package testutil holds the helpers the project's tests share: waiting for a condition the
// test cannot be told of, instead of sleeping for a guessed time, and reading the tables of a
// Markdown document so that a test can hold them to what the code declares.
//
//	testutil.Eventually(t, "the connection to close", func() bool { return conns.Load() == 0 })
//
//	for _, row := range testutil.Table(t, "docs/errors.md", "Code", "Status", "When", "Attributes") {
//		codes := testutil.Code(row[0]) // the `backticked` spans of a cell
//	}
package testutil

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Wait is how long Eventually waits for its condition: generous, so that a loaded machine
// does not fail a test, as it is only reached when the condition never holds.
const Wait = 20 * time.Second

// Eventually returns once cond holds, checking it every 5 ms, and fails t, naming what it
// waited for, when it does not hold within Wait.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(Wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %v waiting for %s", Wait, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Table returns the rows of the Markdown table of file whose header row has the cells header,
// each row's cells with their spaces trimmed, and fails t when file has no such table. Cells
// must not hold a '|'.
func Table(t testing.TB, file string, header ...string) [][]string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join(header, "|")
	var rows [][]string
	in := false
	for line := range strings.Lines(string(b)) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			if in {
				return rows
			}
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		switch {
		case !in && strings.Join(cells, "|") == want:
			in = true
		case in && strings.Trim(strings.Join(cells, ""), "-: ") == "":
			// the separator row
		case in:
			rows = append(rows, cells)
		}
	}
	if !in {
		t.Fatalf("%s has no table with the header | %s |", file, strings.Join(header, " | "))
	}
	return rows
}

var code = regexp.MustCompile("`([^`]*)`")

// Code returns the contents of the `code` spans of s, in order.
func Code(s string) []string {
	var spans []string
	for _, m := range code.FindAllStringSubmatch(s, -1) {
		spans = append(spans, m[1])
	}
	return spans
}
