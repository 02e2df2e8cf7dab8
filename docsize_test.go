package fnapi_test

import (
	"os"
	"testing"
)

// TestBenchmarksSize keeps BENCHMARKS.md a document, not a diary (issue 39): the current
// figures, each with its command and machine, in at most 40 KB. What was tried and did not help
// belongs in commit bodies.
func TestBenchmarksSize(t *testing.T) {
	t.Parallel()
	checkSize(t, "BENCHMARKS.md", 40<<10)
}

// checkSize fails if the file at path holds more than limit bytes.
func checkSize(t *testing.T, path string, limit int64) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > limit {
		t.Errorf("%s is %d bytes, more than %d: move detail to a topic page (docs/) or to commit bodies", path, fi.Size(), limit)
	}
}
