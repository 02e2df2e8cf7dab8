// Package testutil holds the helpers the project's tests share: waiting for a condition the
// test cannot be told of, instead of sleeping for a guessed time, and reading the tables of a
// Markdown document so that a test can hold them to what the code declares.
//
//	testutil.Eventually(t, "the connection to close", func() bool { return conns.Load() == 0 })
//	testutil.Until(t, time.Minute, "the node to answer", func() error { _, err := c.Ping(); return err })
//
//	for _, row := range testutil.Table(t, "docs/errors.md", "Code", "Status", "When", "Attributes") {
//		codes := testutil.Code(row[0]) // the `backticked` spans of a cell
//	}
package testutil

import (
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Wait is how long Eventually waits for its condition: generous, so that a loaded machine
// does not fail a test, as it is only reached when the condition never holds.
const Wait = 20 * time.Second

// Eventually returns once cond holds, checking it as Until does, and fails t, naming what it
// waited for, when it does not hold within Wait.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	Until(t, Wait, what, func() error {
		if cond() {
			return nil
		}
		return errNotYet
	})
}

var errNotYet = errors.New("not yet")

// Until is Eventually for a condition that says why it does not hold yet, with a deadline of d
// for what takes longer than Wait (a node starting, a backfill): it returns once cond returns
// nil, and fails t with cond's last error after d. It checks every 5 ms, then less often (up to
// every second, after some 5 s) as the wait grows, so that a long wait for a costly check (a
// query during a backfill, an HTTP call) does not load the machine it waits for.
func Until(t testing.TB, d time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(d)
	for pause := 5 * time.Millisecond; ; pause = min(pause*5/4, time.Second) {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %v waiting for %s: %v", d, what, err)
		}
		time.Sleep(pause) // a condition no event announces: polled, at most for d
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
