package auth_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/auth"
)

func TestEnsureAdmin(t *testing.T) {
	t.Run("generated password", func(t *testing.T) {
		t.Setenv(auth.AdminPasswordEnv, "")
		log, logs := observe()
		store := auth.NewMemoryStore()
		a, err := auth.New(store, cheap, auth.WithLogger(log))
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "data")
		if err := a.EnsureAdmin(t.Context(), dir); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, auth.AdminPasswordFile)
		st, err := os.Stat(file)
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("password file: %v, %v", st, err)
		}
		b, _ := os.ReadFile(file)
		password := strings.TrimSpace(string(b))
		if len(password) < 20 {
			t.Fatalf("password %d characters", len(password))
		}
		if text := logText(t, logs); strings.Contains(text, password) || !strings.Contains(text, file) {
			t.Fatalf("log must name the file and not the password: %s", text)
		}
		e := newEnv(t, store)
		id := e.get("whoami", withSession(e.login("admin", password)), nil)
		if id.msg["result"].(map[string]any)["admin"] != true {
			t.Fatalf("admin is not an administrator: %s", id.raw)
		}
		// A second start changes nothing.
		if err := a.EnsureAdmin(t.Context(), dir); err != nil {
			t.Fatal(err)
		}
		if b2, _ := os.ReadFile(file); string(b2) != string(b) {
			t.Fatal("the password file was rewritten")
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1 {
			t.Fatalf("data directory holds %v", entries)
		}
	})
	t.Run("password from the environment", func(t *testing.T) {
		t.Setenv(auth.AdminPasswordEnv, "from the environment")
		store := auth.NewMemoryStore()
		a, err := auth.New(store, cheap)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := a.EnsureAdmin(t.Context(), dir); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, auth.AdminPasswordFile)); !os.IsNotExist(err) {
			t.Fatalf("password file written: %v", err)
		}
		e := newEnv(t, store)
		e.login("admin", "from the environment")
	})
	t.Run("password from the option", func(t *testing.T) {
		t.Setenv(auth.AdminPasswordEnv, "from the environment")
		store := auth.NewMemoryStore()
		a, err := auth.New(store, cheap, auth.WithAdminPassword("from the program"))
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := a.EnsureAdmin(t.Context(), dir); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, auth.AdminPasswordFile)); !os.IsNotExist(err) {
			t.Fatalf("password file written: %v", err)
		}
		e := newEnv(t, store)
		e.login("admin", "from the program") // the option wins over the environment
		b, _ := auth.New(auth.NewMemoryStore(), cheap, auth.WithAdminPassword("short"))
		if err := b.EnsureAdmin(t.Context(), t.TempDir()); err == nil || !strings.Contains(err.Error(), "administrator's password") {
			t.Fatalf("a 5-character password from the option: %v", err)
		}
	})
	t.Run("short password from the environment", func(t *testing.T) {
		t.Setenv(auth.AdminPasswordEnv, "short")
		a, _ := auth.New(auth.NewMemoryStore(), cheap)
		err := a.EnsureAdmin(t.Context(), t.TempDir())
		if err == nil {
			t.Fatal("a 5-character password was accepted")
		}
		if !strings.Contains(err.Error(), auth.AdminPasswordEnv) { // the operator learns what to fix
			t.Fatalf("the error does not name %s: %v", auth.AdminPasswordEnv, err)
		}
	})
}

// noUsersYet is a store whose Users answers as it did before any process created the
// administrator: what each of two processes starting at once sees.
type noUsersYet struct{ auth.Store }

func (noUsersYet) Users(context.Context) ([]auth.User, error) { return nil, nil }

func TestEnsureAdminTwoProcesses(t *testing.T) {
	t.Setenv(auth.AdminPasswordEnv, "")
	store := auth.NewMemoryStore()
	var dirs []string
	for range 2 {
		a, err := auth.New(noUsersYet{store}, cheap)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := a.EnsureAdmin(t.Context(), dir); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	if _, err := os.Stat(filepath.Join(dirs[1], auth.AdminPasswordFile)); !os.IsNotExist(err) {
		t.Fatalf("the process that was second left a password file that is not the administrator's: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(dirs[0], auth.AdminPasswordFile))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, store)
	if s := e.login("admin", strings.TrimSpace(string(b))); s == "" {
		t.Fatal("the first process's password does not log in")
	}
}
