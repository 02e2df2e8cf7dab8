package testenv

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fnapi/fnapi/internal/testutil"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// Postgres is a PostgreSQL server a test started: a fresh cluster in a temporary directory,
// listening on 127.0.0.1 at a free port, trusting local connections (no password). Its
// methods are for the test's goroutine.
type Postgres struct {
	// Port is the TCP port the server listens on.
	Port int

	bin  string // directory of initdb and postgres
	dir  string // holds the cluster (data/) and the socket directory (run/)
	cred *syscall.Credential
	cmd  *exec.Cmd
	dbs  atomic.Int64
}

// StartPostgres initialises a cluster and starts its server; the test's cleanup stops it and
// removes its files. As root, both run as the postgres user (initdb refuses root), so the
// cluster lives in a directory of its own that postgres owns rather than in t.TempDir.
func StartPostgres(t testing.TB) *Postgres {
	t.Helper()
	bin := postgresBin(t)
	p := &Postgres{Port: FreePort(t), bin: bin}
	var err error
	if p.dir, err = os.MkdirTemp("", "testenv-pg-"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(p.dir) })
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("testenv: running as root needs the postgres user (Debian's postgresql package adds it): %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		p.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(p.dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(p.dir, "run"), 0o700); err != nil {
		t.Fatal(err)
	}
	if p.cred != nil {
		if err := os.Chown(filepath.Join(p.dir, "run"), int(p.cred.Uid), int(p.cred.Gid)); err != nil {
			t.Fatal(err)
		}
	}
	initdb := p.command(filepath.Join(bin, "initdb"), "-D", filepath.Join(p.dir, "data"),
		"-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C")
	if out, err := initdb.CombinedOutput(); err != nil {
		t.Fatalf("testenv: initdb: %v\n%s", err, out)
	}
	p.Start(t)
	t.Cleanup(func() { p.Stop(t) })
	return p
}

// postgresBin finds the directory of Debian's PostgreSQL server binaries (they are not on
// PATH), skipping or failing the test as Need does when there is none.
func postgresBin(t testing.TB) string {
	t.Helper()
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
	if path, err := exec.LookPath("postgres"); err == nil {
		found = append(found, path)
	}
	if len(found) > 0 {
		return filepath.Dir(found[len(found)-1]) // the newest version sorts last
	}
	if CI() {
		t.Fatal("postgres not found: .ci/run installs it (apt-get install postgresql)")
	}
	t.Skip("postgres not found; apt-get install postgresql to run this test")
	return ""
}

func (p *Postgres) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = p.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: p.cred, Setpgid: true}
	return cmd
}

// Start starts the server (again, after Stop) and waits until it accepts connections.
func (p *Postgres) Start(t testing.TB) {
	t.Helper()
	if p.cmd != nil {
		t.Fatal("testenv: postgres is already running")
	}
	log, err := os.OpenFile(filepath.Join(p.dir, "postgres.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	cmd := p.command(filepath.Join(p.bin, "postgres"), "-D", filepath.Join(p.dir, "data"),
		"-p", strconv.Itoa(p.Port), "-k", filepath.Join(p.dir, "run"),
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=200")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("testenv: starting postgres: %v", err)
	}
	p.cmd = cmd
	db, err := sql.Open("pgx", p.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	testutil.Until(t, 30*time.Second, "postgres to start", func() error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if err := db.PingContext(ctx); err != nil {
			return logged{err, filepath.Join(p.dir, "postgres.log")}
		}
		return nil
	})
}

// Stop stops the server by its process ID (a fast shutdown: sessions are disconnected) and
// waits for it to exit. It does nothing when the server is not running.
func (p *Postgres) Stop(t testing.TB) {
	t.Helper()
	if p.cmd == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
	p.cmd = nil
}

// URL returns the URL of database db on the server, as the data service's -postgres flag
// takes it.
func (p *Postgres) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", p.Port, db)
}

// Database creates an empty database and returns its URL: tests share one server and keep
// apart by database.
func (p *Postgres) Database(t testing.TB) string {
	t.Helper()
	name := "t" + strconv.FormatInt(p.dbs.Add(1), 10) + "_" +
		strings.ToLower(strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
				return r
			}
			return '_'
		}, t.Name()))
	if len(name) > 60 {
		name = name[:60]
	}
	db, err := sql.Open("pgx", p.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE DATABASE "` + name + `"`); err != nil {
		t.Fatalf("testenv: creating database %s: %v", name, err)
	}
	return p.URL(name)
}
