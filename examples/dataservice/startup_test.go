package main

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fnapi/fnapi"
	"go.uber.org/zap"
)

// failStart runs the service with args, expects it to fail at start with exit status 1, and
// returns its one line of error (the log's JSON lines aside).
func failStart(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "DATASERVICE_MAIN=1", "DATASERVICE_ARGS="+strings.Join(args, " "),
		"SVC_ADMIN_PASSWORD=correct horse battery staple")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit: %v, want status 1\n%s", err, out)
	}
	if strings.Contains(string(out), "goroutine ") || strings.Contains(string(out), "panic") {
		t.Fatalf("a start-up failure panicked:\n%s", out)
	}
	var lines []string
	for l := range strings.Lines(string(out)) {
		if !strings.HasPrefix(l, "{") {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "dataservice: ") {
		t.Fatalf("want one line of error, got:\n%s", out)
	}
	return lines[0]
}

// TestStartFailures checks that each cause of a failed start is one line that says what is
// wrong and what to do, and exit status 1.
// repeatedPrefix returns a wrapping prefix said twice in a row in line ("state: state: ..."),
// which tells the operator nothing the first did not, or "".
func repeatedPrefix(line string) string {
	parts := strings.Split(line, ": ")
	for i := 1; i < len(parts); i++ {
		if parts[i] == parts[i-1] && !strings.ContainsAny(parts[i], " (") {
			return parts[i] + ": " + parts[i] + ": "
		}
	}
	return ""
}

func TestStartFailures(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	garbage := func(name string) string {
		d := filepath.Join(dir, "garbage-"+name)
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, name), []byte("not a database, not at all, just some text\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return d
	}
	notDir := filepath.Join(dir, "a-file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// Two self-signed certificates: the first's certificate with the second's key.
	for _, d := range []string{"c1", "c2"} {
		if _, err := fnapi.SelfSignedCertificate(filepath.Join(dir, d), nil, zap.NewNop()); err != nil {
			t.Fatal(err)
		}
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	fresh := func() string { return t.TempDir() }
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"idle below the minimum", []string{"-data", fresh(), "-session-idle", "2s"}, []string{"-session-idle 2s: must be at least 1m", "leave the flag out"}},
		{"idle above max", []string{"-data", fresh(), "-session-idle", "3h", "-session-max", "2h"}, []string{"-session-idle 3h0m0s is longer than -session-max 2h0m0s"}},
		{"negative duration", []string{"-data", fresh(), "-session-max", "-1h"}, []string{"-session-max -1h0m0s: must be a positive"}},
		{"negative rate limit", []string{"-data", fresh(), "-rate-limit", "-5"}, []string{"-rate-limit -5: must be 0"}},
		{"not a number", []string{"-data", fresh(), "-rate-limit", "many"}, []string{`invalid value "many" for flag -rate-limit`}},
		{"proxy protocol not a prefix", []string{"-data", fresh(), "-proxy-protocol", "10.0.0.0/8,10.0.0.0/33"},
			[]string{`invalid value "10.0.0.0/8,10.0.0.0/33" for flag -proxy-protocol`, "such as 10.0.0.5 or 10.0.0.0/24"}},
		{"stray argument", []string{"-data", fresh(), "serve"}, []string{`unexpected arguments ["serve"]`}},
		{"cert without key", []string{"-data", fresh(), "-cert", filepath.Join(dir, "c1/tls/cert.pem")}, []string{"-cert and -key go together"}},
		{"cert and key apart", []string{"-data", fresh(), "-cert", filepath.Join(dir, "c1/tls/cert.pem"), "-key", filepath.Join(dir, "c2/tls/key.pem")},
			[]string{"private key does not match public key", "give the certificate with its own key"}},
		{"port in use", []string{"-data", fresh(), "-addr", taken.Addr().String()}, []string{"-addr " + taken.Addr().String() + ": the address is in use", "choose another -addr"}},
		{"data not writable", []string{"-data", filepath.Join(notDir, "data"), "-addr", "127.0.0.1:0"}, []string{"cannot be written", "give a directory this user may write"}},
		{"records damaged", []string{"-data", garbage("records.duckdb"), "-addr", "127.0.0.1:0"}, []string{"records.duckdb is damaged", "restore it from a backup"}},
		{"state damaged", []string{"-data", garbage("state.db"), "-addr", "127.0.0.1:0"}, []string{"state.db is damaged"}},
		{"users damaged", []string{"-data", garbage("auth.db"), "-addr", "127.0.0.1:0"}, []string{"auth.db is damaged"}},
		// Port 1 of the loopback: nothing listens there, the connection is refused at once.
		{"postgres down", []string{"-data", fresh(), "-addr", "127.0.0.1:0", "-postgres", "postgres://svc:hunter22@127.0.0.1:1/svc?sslmode=disable"},
			[]string{"-postgres: the server does not answer", "start it, or check the URL's host and port"}},
		{"clickhouse down", []string{"-data", fresh(), "-addr", "127.0.0.1:0", "-clickhouse", "clickhouse://127.0.0.1:1/default"},
			[]string{"-clickhouse: the server does not answer", "start it"}},
		{"collector address", []string{"-data", fresh(), "-addr", "127.0.0.1:0", "-netflow", "nonsense"},
			[]string{"missing port in address", "give -netflow and -sflow a UDP host:port"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := failStart(t, tt.args...)
			if strings.Contains(line, "hunter22") {
				t.Errorf("%q shows the -postgres password", line)
			}
			if m := repeatedPrefix(line); m != "" {
				t.Errorf("%q repeats a prefix: %q", line, m)
			}
			for _, w := range tt.want {
				if !strings.Contains(line, w) {
					t.Errorf("%q does not say %q", line, w)
				}
			}
		})
	}
	t.Run("data directory in use", func(t *testing.T) {
		if testing.Short() {
			t.Skip("starts the service")
		}
		data := t.TempDir()
		p := startService(t, "-addr", "127.0.0.1:0", "-data", data)
		line := failStart(t, "-addr", "127.0.0.1:0", "-data", data)
		if !strings.Contains(line, "-data "+data+" is in use by another instance") || !strings.Contains(line, "give each instance its own -data") {
			t.Errorf("%q", line)
		}
		p.stop(t)
	})
}
