package testenv

import (
	"bufio"
	"os/exec"
	"strconv"
	"time"
)

// RIBLine is a line of gobgp's monitor of the global RIB and when it came.
type RIBLine struct {
	Text string
	At   time.Time
}

// Monitor follows the routes gobgpd's global RIB gains and loses in family ("ipv4",
// "ipv4-flowspec", ...) with the gobgp CLI (gobgp monitor global rib), until the end of the
// test: each line as it comes, with its time, so that a test learns when a route arrived
// without polling.
func (g *GoBGPD) Monitor(family string) <-chan RIBLine {
	g.t.Helper()
	cmd := exec.Command(g.cli, "-p", strconv.Itoa(g.api), "monitor", "global", "rib", "-a", family)
	out, err := cmd.StdoutPipe()
	if err != nil {
		g.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		g.t.Fatal(err)
	}
	g.t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan RIBLine, 1024)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- RIBLine{Text: sc.Text(), At: time.Now()}
		}
	}()
	return lines
}
