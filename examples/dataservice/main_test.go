package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/internal/testutil"
)

// The test binary doubles as the service: run with DATASERVICE_MAIN=1 it is main().
func TestMain(m *testing.M) {
	if os.Getenv("DATASERVICE_MAIN") == "1" {
		os.Args = append([]string{"dataservice"}, strings.Fields(os.Getenv("DATASERVICE_ARGS"))...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type process struct {
	cmd *exec.Cmd
	url string
	log *logText
	// flows holds the address of each flow collector ("netflow", "sflow"), from the log
	// lines before the ready line.
	flows map[string]string
	// metrics is the URL of the metrics (-metrics), from its log line.
	metrics string
}

// logText is the log a process wrote so far, read while it runs.
type logText struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logText) WriteString(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.WriteString(s)
}

func (l *logText) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startService runs the command as an operator would, and waits for its ready line.
func startService(t *testing.T, args ...string) *process {
	t.Helper()
	return startServiceIn(t, "", args...)
}

// startServiceIn is startService in network namespace ns (ip netns exec), or in the test's
// own when ns is "".
func startServiceIn(t testing.TB, ns string, args ...string) *process {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if ns != "" {
		cmd = exec.Command("ip", "netns", "exec", ns, os.Args[0], "-test.run=^$")
	}
	cmd.Env = append(os.Environ(), "DATASERVICE_MAIN=1", "DATASERVICE_ARGS="+strings.Join(args, " "))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd, log: &logText{}, flows: map[string]string{}}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			p.log.WriteString(line + "\n")
			var entry struct{ Msg, URL, Protocol, Addr string }
			if json.Unmarshal([]byte(line), &entry) == nil && entry.Msg == "collecting flows" {
				p.flows[entry.Protocol] = entry.Addr
			}
			if json.Unmarshal([]byte(line), &entry) == nil && entry.Msg == "serving metrics" {
				p.metrics = entry.URL
			}
			if json.Unmarshal([]byte(line), &entry) == nil && entry.Msg == "fnapi: serving HTTPS" {
				ready <- entry.URL
			}
		}
		close(ready)
	}()
	select {
	case u, ok := <-ready:
		if !ok {
			t.Fatalf("the service exited before it was ready:\n%s", p.log)
		}
		p.url = strings.TrimSuffix(u, "/")
	case <-time.After(60 * time.Second):
		t.Fatalf("no ready line within a minute:\n%s", p.log)
	}
	return p
}

// stop sends SIGTERM and expects a clean exit.
func (p *process) stop(t testing.TB) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, p.log)
	}
}

// adminClient logs in as admin to the service p keeping its data in data.
func adminClient(t *testing.T, p *process, data string) *client.Client {
	t.Helper()
	pw, err := os.ReadFile(filepath.Join(data, "admin-password"))
	if err != nil {
		t.Fatal(err)
	}
	anon, _ := client.New(p.url+"/api", client.WithHTTPClient(insecure()))
	var session string
	if err := anon.Call(context.Background(), "login", map[string]string{"user": "admin", "password": strings.TrimSpace(string(pw))}, &session); err != nil {
		t.Fatal(err)
	}
	c, _ := client.New(p.url+"/api", client.WithHTTPClient(insecure()), client.WithSession(session))
	return c
}

func insecure() *http.Client {
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
}

// TestCommandLine runs the service binary with -demo: ready line, demo data queryable at once,
// TLS only, clean shutdown on SIGTERM, and everything kept across a restart.
func TestCommandLine(t *testing.T) {
	// Serial: its demo backfill must reach the present within 2 minutes on a loaded machine.
	if testing.Short() {
		t.Skip("starts the service twice")
	}
	data := t.TempDir()
	args := []string{"-addr", "127.0.0.1:0", "-data", data, "-demo", "-session-idle", "30m", "-rate-limit", "500"}
	p := startService(t, args...)
	pw, err := os.ReadFile(filepath.Join(data, "admin-password"))
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(filepath.Join(data, "admin-password")); st.Mode().Perm() != 0o600 {
		t.Errorf("admin-password mode %v, want 0600", st.Mode().Perm())
	}
	ctx := context.Background()
	anon, _ := client.New(p.url+"/api", client.WithHTTPClient(insecure()))
	session, err := client.Call(ctx, anon, authapi.Login, authapi.LoginArgs{User: "admin", Password: strings.TrimSpace(string(pw))})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := client.New(p.url+"/api", client.WithHTTPClient(insecure()), client.WithSession(session))
	key, err := client.Call(ctx, c, authapi.CreateAPIKey, authapi.KeyArgs{Name: "ops"})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := client.Call(ctx, c, api.GetConfig, decl.None{})
	if err != nil || string(cfg["session_idle"]) != `"30m"` || string(cfg["rate_limit"]) != "500" {
		t.Fatalf("-session-idle 30m -rate-limit 500: get-config = %v, %v", cfg, err)
	}
	// The demo backfills the last 24 hours at start, oldest first, in batches: it is done once
	// the last minutes have records (the last batch holds them). Two equal counts in a row are
	// no sign of it: under load one batch can take longer than a poll.
	end := time.Now().Unix()
	count := func(since, until int64) float64 {
		var res []struct{ Data [][2][]float64 }
		expr := fmt.Sprintf("records SINCE %d UNTIL %d", since, until)
		if err := c.Call(ctx, "query", map[string]any{"expr": expr}, &res); err != nil {
			t.Fatal(err)
		}
		return res[0].Data[0][1][0]
	}
	testutil.Until(t, 2*time.Minute, "the demo backfill to reach the present", func() error {
		if count(end-600, end) == 0 {
			return errors.New("no records in the last 10 minutes")
		}
		return nil
	})
	window := map[string]any{"expr": fmt.Sprintf("records SINCE %d UNTIL %d", end-86400, end)}
	total := count(end-86400, end)
	if total < 1000 {
		t.Fatalf("demo data: %v records in the last day", total)
	}

	// Plain HTTP on the TLS port gets no API answer.
	host := strings.TrimPrefix(p.url, "https://")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.WriteString(conn, "GET /api/echo?a=1 HTTP/1.1\r\nHost: x\r\n\r\n")
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	reply, _ := io.ReadAll(conn)
	conn.Close()
	if strings.Contains(string(reply), `"type"`) {
		t.Fatalf("plain HTTP got an API answer: %q", reply)
	}
	p.stop(t)
	if !strings.Contains(p.log.String(), `"msg":"stopped"`) {
		t.Errorf("no clean stop in the log:\n%s", p.log)
	}
	if strings.Contains(p.log.String(), strings.TrimSpace(string(pw))) || strings.Contains(p.log.String(), strings.TrimPrefix(key, "secret:")) {
		t.Fatal("the log holds the admin password or an API key")
	}

	// Restarted on the same data: the key still works, the records are still there, and the
	// demo does not backfill the day again. (Live demo records written after the first count
	// may add a few to the window.)
	restarted := time.Now().Unix()
	p = startService(t, args...)
	c, _ = client.New(p.url+"/api", client.WithHTTPClient(insecure()), client.WithAPIKey(key))
	// The demo writes its backfill, oldest first, before its live records: once records of
	// the present are stored, a wrongly repeated backfill would have landed.
	testutil.Until(t, time.Minute, "records written after the restart", func() error {
		if count(restarted, restarted+3600) == 0 {
			return errors.New("none yet")
		}
		return nil
	})
	var res []struct{ Data [][2][]float64 }
	if err := c.Call(ctx, "query", window, &res); err != nil {
		t.Fatal(err)
	}
	if after := res[0].Data[0][1][0]; after < total || after > total*1.05 {
		t.Fatalf("after restart %v records in the window, before %v", after, total)
	}
	p.stop(t)
}
