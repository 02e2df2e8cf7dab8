package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
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

// TestReadmeCommands runs the README's first commands as a newcomer types them, against the
// service its first line starts (-demo; here with a temporary -data and a free port, which the
// other lines are pointed at): the session from login, a query's answer (five applications),
// an API key, and list-dashboards with the key (the demo's two dashboards).
func TestReadmeCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the demo")
	}
	t.Parallel()
	if _, err := exec.LookPath("curl"); err != nil {
		if testenv.CI() {
			t.Fatal("no curl on this machine: .ci/install-extras installs it")
		}
		t.Skip("no curl on this machine: the README's commands are not run")
	}
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, _ := strings.Cut(string(b), "```sh\n")
	block, _, _ = strings.Cut(block, "```")
	start, rest, _ := strings.Cut(block, "\n")
	if !strings.HasPrefix(start, "go -C examples/dataservice run . -demo ") {
		t.Fatalf("the README's first command is %q, not the demo's", start)
	}
	data := t.TempDir()
	p := startService(t, "-addr", "127.0.0.1:0", "-data", data, "-demo")
	c := adminClient(t, p, data)
	// The backfill is done once the last minutes have records (its last batch holds them).
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for deadline := time.Now().Add(3 * time.Minute); ; <-tick.C {
		var res []struct{ Data [][2][]float64 }
		err := c.Call(context.Background(), "query", map[string]any{"expr": "records SINCE @now-300"}, &res)
		if err == nil && len(res) == 1 && len(res[0].Data) == 1 && res[0].Data[0][1][0] > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the demo's backfill not done within 3 minutes: %v", err)
		}
	}
	script := strings.NewReplacer("127.0.0.1:8443", strings.TrimPrefix(p.url, "https://"),
		"examples/dataservice/data/", data+"/").Replace(rest)
	out, err := exec.Command("bash", "-euo", "pipefail", "-c", script).CombinedOutput()
	if err != nil {
		t.Fatalf("the README's commands: %v\n%s", err, out)
	}
	var query struct {
		Type   string
		Result []struct{ Data []json.RawMessage }
	}
	var dashboards struct {
		Type   string
		Result []struct{ Title string }
	}
	// Two answers, one after the other (curl adds no newline).
	dec := json.NewDecoder(bytes.NewReader(out))
	if dec.Decode(&query) != nil || dec.Decode(&dashboards) != nil || dec.More() {
		t.Fatalf("the README's commands answer, want two JSON values:\n%s", out)
	}
	if query.Type != "result" || len(query.Result) != 1 || len(query.Result[0].Data) != 5 {
		t.Errorf("traffic BY application TOP 5 answers %+v, want five applications:\n%s", query, out)
	}
	if dashboards.Type != "result" || len(dashboards.Result) != 2 || dashboards.Result[0].Title != "Network overview" {
		t.Errorf("list-dashboards with the key answers %+v, want the demo's two dashboards", dashboards)
	}
}
