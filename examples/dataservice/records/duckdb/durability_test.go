package duckdb_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records/duckdb"
	"github.com/fnapi/fnapi/examples/dataservice/records/recordstest"
)

// childDirEnv, when set, makes the test binary a child that ingests into that directory.
const childDirEnv = "RECORDS_TEST_CHILD_DIR"

const durabilityBatch = 1000

// TestMain runs the child of TestDuckDBSurvivesKill when asked to.
func TestMain(m *testing.M) {
	if dir := os.Getenv(childDirEnv); dir != "" {
		ingestUntilKilled(dir)
		return
	}
	os.Exit(m.Run())
}

// ingestUntilKilled ingests batches of durabilityBatch records forever, printing "acked N" after
// each acknowledged batch, N being the batches acknowledged so far.
func ingestUntilKilled(dir string) {
	ctx := context.Background()
	s, err := duckdb.Open(ctx, dir)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	for i := 1; ; i++ {
		if err := s.Ingest(ctx, recordstest.Sample(durabilityBatch, int64(1700000000+i*durabilityBatch))); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("acked", i)
	}
}

// TestDuckDBSurvivesKill runs a child process that ingests continuously, kills it with SIGKILL
// after some acknowledged batches, and checks that reopening finds every acknowledged batch and
// only whole batches.
func TestDuckDBSurvivesKill(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a child process")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childDirEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := 0
	lines := bufio.NewScanner(out)
	for acked < 20 && lines.Scan() {
		n, ok := strings.CutPrefix(lines.Text(), "acked ")
		if !ok {
			t.Fatalf("child: %s", lines.Text())
		}
		acked, _ = strconv.Atoi(n)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if acked < 20 {
		t.Fatalf("child acknowledged %d batches before stopping", acked)
	}

	s := openStore(t, dir)
	defer s.Close()
	n := countRows(t, s)
	if n < int64(acked*durabilityBatch) || n%durabilityBatch != 0 {
		t.Fatalf("after kill -9: %d records, want whole batches of %d and at least the %d acknowledged",
			n, durabilityBatch, acked*durabilityBatch)
	}
	t.Logf("acknowledged %d batches, found %d records", acked, n)
}
