package sqlstore_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/registry"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

const adminPassword = "the admin's password"

// logBuffer collects log lines, for scanning.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) Sync() error { return nil }

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func start(t testing.TB, dir string, logs io.Writer) (*httptest.Server, *auth.Authenticator, func()) {
	t.Helper()
	ctx := context.Background()
	store, err := openStore(ctx, filepath.Join(dir, "auth.db"))
	if err != nil {
		t.Fatal(err)
	}
	log := zap.NewNop()
	if logs != nil {
		log = zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewDevelopmentEncoderConfig()), zapcore.AddSync(logs), zapcore.DebugLevel))
	}
	a, err := auth.New(store, auth.WithArgon2(auth.Argon2{Memory: 64, Iterations: 1}), auth.WithLogger(log))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(auth.AdminPasswordEnv, adminPassword)
	if err := a.EnsureAdmin(ctx, dir); err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	fnapi.MustRegisterBuiltins(reg)
	a.MustRegister(reg)
	reg.MustRegister("user-name", func(ctx context.Context) string { return auth.FromContext(ctx).User })
	h, err := fnapi.New(reg, fnapi.WithInterceptors(a.Interceptor()), fnapi.WithLogger(log))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", h))
	srv := httptest.NewTLSServer(mux)
	stop := func() {
		srv.Close()
		if err := a.Close(ctx); err != nil {
			t.Error(err)
		}
		store.Close()
	}
	return srv, a, stop
}

// call calls fn with JSON arguments and returns the message.
func call(t testing.TB, srv *httptest.Server, fn string, args map[string]any) map[string]any {
	t.Helper()
	q := url.Values{}
	for k, v := range args {
		b, _ := json.Marshal(v)
		q.Set(k, string(b))
	}
	res, err := srv.Client().Get(srv.URL + "/api/" + fn + "?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(res.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// result calls fn and returns its string result, failing on an error.
func result(t testing.TB, srv *httptest.Server, fn string, args map[string]any) string {
	t.Helper()
	m := call(t, srv, fn, args)
	if m["type"] != "result" {
		t.Fatalf("%s: %v", fn, m)
	}
	s, _ := m["result"].(string)
	return s
}

func wantRefused(t *testing.T, srv *httptest.Server, what string, args map[string]any) {
	t.Helper()
	if m := call(t, srv, "user-name", args); m["error"] != "API-AUTHENTICATION-NEEDED" {
		t.Errorf("%s: %v, want API-AUTHENTICATION-NEEDED", what, m)
	}
}

func wantAccepted(t *testing.T, srv *httptest.Server, what string, args map[string]any, user string) {
	t.Helper()
	if m := call(t, srv, "user-name", args); m["result"] != user {
		t.Errorf("%s: %v, want %s", what, m, user)
	}
}

// tokens are what a scenario made: tokens that must work after a restart, tokens that must not.
type tokens struct {
	Session, Key          string
	Revoked, DeletedUsers []string
	Passwords             []string
}

// scenario logs in, makes keys and users, revokes one key and deletes one user.
func scenario(t testing.TB, srv *httptest.Server) tokens {
	t.Helper()
	var tk tokens
	tk.Session = result(t, srv, "login", map[string]any{"user": "admin", "password": adminPassword})
	tk.Key = result(t, srv, "create-api-key", map[string]any{"name": "ci", "_session": tk.Session})
	tk.Revoked = append(tk.Revoked, result(t, srv, "create-api-key", map[string]any{"name": "old", "_session": tk.Session}))
	result(t, srv, "user-name", map[string]any{"_key": tk.Revoked[0]})
	if m := call(t, srv, "revoke-api-key", map[string]any{"name": "old", "_key": tk.Key}); m["result"] != true {
		t.Fatalf("revoke: %v", m)
	}
	bobPassword := "bob's password"
	if m := call(t, srv, "create-user", map[string]any{"user": "bob", "password": bobPassword, "_key": tk.Key}); m["type"] != "result" {
		t.Fatalf("create-user: %v", m)
	}
	bob := result(t, srv, "login", map[string]any{"user": "bob", "password": bobPassword})
	bobKey := result(t, srv, "create-api-key", map[string]any{"name": "ci", "_session": bob})
	result(t, srv, "user-name", map[string]any{"_key": bobKey})
	if m := call(t, srv, "delete-user", map[string]any{"user": "bob", "_session": tk.Session}); m["result"] != true {
		t.Fatalf("delete-user: %v", m)
	}
	tk.DeletedUsers = []string{bob, bobKey}
	result(t, srv, "user-name", map[string]any{"_key": tk.Key})
	tk.Passwords = []string{adminPassword, bobPassword}
	return tk
}

// check verifies after a restart that what should survive did, and what was ended stays so.
func check(t *testing.T, srv *httptest.Server, tk tokens) {
	t.Helper()
	wantAccepted(t, srv, "session", map[string]any{"_session": tk.Session}, "admin")
	wantAccepted(t, srv, "key", map[string]any{"_key": tk.Key}, "admin")
	for _, k := range tk.Revoked {
		wantRefused(t, srv, "revoked key", map[string]any{"_key": k})
	}
	wantRefused(t, srv, "deleted user's session", map[string]any{"_session": tk.DeletedUsers[0]})
	wantRefused(t, srv, "deleted user's key", map[string]any{"_key": tk.DeletedUsers[1]})
	if m := call(t, srv, "login", map[string]any{"user": "bob", "password": tk.Passwords[1]}); m["error"] != "INVALID-CREDENTIALS" {
		t.Errorf("deleted user logs in: %v", m)
	}
}

func TestRestart(t *testing.T) {
	dir := t.TempDir()
	srv, _, stop := start(t, dir, nil)
	tk := scenario(t, srv)
	stop()

	srv, _, stop = start(t, dir, nil)
	defer stop()
	check(t, srv, tk)
	m := call(t, srv, "list-api-keys", map[string]any{"_key": tk.Key})
	keys, _ := m["result"].([]any)
	if len(keys) != 1 || keys[0].(map[string]any)["last_used"] == nil {
		t.Fatalf("list-api-keys after restart: %v (the last use must have been flushed at Close)", m)
	}
}

// TestKilledProcess runs the scenario in a child process (this test binary again), kills it
// with SIGKILL while it is using its key, and checks what a new process finds.
func TestKilledProcess(t *testing.T) {
	if dir := os.Getenv("SQLSTORE_TEST_CHILD"); dir != "" {
		child(t, dir)
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledProcess$", "-test.timeout=5m")
	cmd.Env = append(os.Environ(), "SQLSTORE_TEST_CHILD="+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var tk tokens
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), "TOKENS "); ok {
			if err := json.Unmarshal([]byte(line), &tk); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if tk.Key == "" {
		_ = cmd.Process.Kill()
		t.Fatalf("the child did not report: %v", cmd.Wait())
	}
	time.Sleep(50 * time.Millisecond) // let it use the key a little; no assertion depends on it
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	srv, _, stop := start(t, dir, nil)
	defer stop()
	check(t, srv, tk)
}

// child runs the scenario, reports its tokens on stdout and uses the key until it is killed.
func child(t *testing.T, dir string) {
	srv, _, _ := start(t, dir, nil) // never stopped: the process is killed
	tk := scenario(t, srv)
	b, _ := json.Marshal(tk)
	fmt.Printf("TOKENS %s\n", b)
	for {
		result(t, srv, "user-name", map[string]any{"_key": tk.Key})
	}
}

// TestNoSecretsAtRest scans every file of the data directory, and the log, for the passwords
// and tokens the scenario used.
func TestNoSecretsAtRest(t *testing.T) {
	dir := t.TempDir()
	logs := &logBuffer{}
	srv, _, stop := start(t, dir, logs)
	tk := scenario(t, srv)
	running := readDir(t, dir) // with the write-ahead log
	stop()
	var secrets []string
	secrets = append(secrets, tk.Passwords...)
	for _, tok := range append([]string{tk.Session, tk.Key}, append(tk.Revoked, tk.DeletedUsers...)...) {
		secrets = append(secrets, tok, tok[strings.IndexByte(tok, ':')+1:])
	}
	files := readDir(t, dir)
	files["log"] = []byte(logs.String())
	for name, b := range running {
		files["running: "+name] = b
	}
	if len(files) < 3 {
		t.Fatalf("nothing to scan: %v", files)
	}
	for name, b := range files {
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds a secret in clear (%.10s...)", name, s)
			}
		}
	}
	if st, err := os.Stat(filepath.Join(dir, "auth.db")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("auth.db mode: %v %v", st, err)
	}
}

// readDir returns the content of every file under dir but the administrator's password file.
func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == auth.AdminPasswordFile {
			return err
		}
		b, err := os.ReadFile(path)
		files[path] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
