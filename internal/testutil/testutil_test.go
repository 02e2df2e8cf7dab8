package testutil_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/fnapi/fnapi/internal/testutil"
)

func TestTable(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "README.md")
	text := "# T\n\n| A | B |\n|---|---|\n| x | y |\n\n| Flag | Meaning |\n|:--|--:|\n| `-a`, `-b` | two |\n| `-c` | one |\n\nafter\n| z | w |\n"
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	rows := testutil.Table(t, file, "Flag", "Meaning")
	want := [][]string{{"`-a`, `-b`", "two"}, {"`-c`", "one"}}
	if !slices.EqualFunc(rows, want, slices.Equal) {
		t.Fatalf("rows %q, want %q", rows, want)
	}
	if got := testutil.Code(rows[0][0]); !slices.Equal(got, []string{"-a", "-b"}) {
		t.Fatalf("Code %q", got)
	}
}

func TestUntil(t *testing.T) {
	t.Parallel()
	n := 0
	testutil.Until(t, time.Minute, "three checks", func() error {
		if n++; n < 3 {
			return fmt.Errorf("check %d", n)
		}
		return nil
	})
	if n != 3 {
		t.Fatalf("checked %d times, want 3", n)
	}
}

func TestEventually(t *testing.T) {
	t.Parallel()
	n := 0
	testutil.Eventually(t, "three checks", func() bool { n++; return n == 3 })
	if n != 3 {
		t.Fatalf("checked %d times, want 3", n)
	}
}
