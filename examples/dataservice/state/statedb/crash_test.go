package statedb_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/state/statedb"
)

// crashDirEnv, when set, makes TestKill9 the writer process that the test kills.
const crashDirEnv = "STATE_TEST_CRASH_DIR"

// TestKill9 kills a process that is writing with SIGKILL and checks that every write it had
// acknowledged is in the store afterwards.
func TestKill9(t *testing.T) {
	t.Parallel()
	if dir := os.Getenv(crashDirEnv); dir != "" {
		writeUntilKilled(dir)
		return
	}
	if testing.Short() {
		t.Skip("starts a process")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKill9$")
	cmd.Env = append(os.Environ(), crashDirEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var acked []string
	lines := bufio.NewScanner(out)
	for len(acked) < 40 && lines.Scan() {
		acked = append(acked, lines.Text())
	}
	_ = cmd.Process.Kill() // SIGKILL: no chance to close anything
	_ = cmd.Wait()
	if len(acked) < 40 {
		t.Fatalf("the writer acknowledged only %d writes before it stopped", len(acked))
	}

	s := open(t, dir)
	ctx := context.Background()
	for _, id := range acked {
		if _, err := s.Dashboard(ctx, id); err != nil {
			t.Fatalf("acknowledged dashboard %s lost: %v", id, err)
		}
	}
	cfg, err := s.Config(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if cfg["last"] == "" {
		t.Fatal("acknowledged configuration lost")
	}
}

// writeUntilKilled creates dashboards (and sets a config value) for ever, printing each
// dashboard's ID once the store has acknowledged it.
func writeUntilKilled(dir string) {
	ctx := context.Background()
	s, err := statedb.OpenSQLite(ctx, dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for i := 0; ; i++ {
		d, err := s.CreateDashboard(ctx, state.Dashboard{Title: fmt.Sprint("d", i)})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if _, err := s.UpdateConfig(ctx, func(v map[string]string) error { v["last"] = d.ID; return nil }); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Println(d.ID)
	}
}
