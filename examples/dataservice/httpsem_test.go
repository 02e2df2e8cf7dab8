package main

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// TestCurlConditionalAndIdempotent runs curl as a user would against the service: a poll of
// list-dashboards with the ETag it got answers 304 until a dashboard is created; a
// create-dashboard sent twice with one Idempotency-Key makes one dashboard, the second answer
// marked Idempotent-Replayed; the same key with another title is 422.
func TestCurlConditionalAndIdempotent(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the service")
	}
	curl := testenv.Need(t, "curl", "curl")
	data := t.TempDir()
	p := startService(t, "-addr", "127.0.0.1:0", "-data", data)
	pw, err := os.ReadFile(filepath.Join(data, "admin-password"))
	if err != nil {
		t.Fatal(err)
	}
	jar := filepath.Join(t.TempDir(), "cookies.txt")
	// run answers the status, the headers and the body curl -i printed.
	run := func(args ...string) (int, http.Header, string) {
		t.Helper()
		out, err := exec.CommandContext(t.Context(), curl, append([]string{"-sS", "-k", "-i", "-b", jar, "-c", jar}, args...)...).Output()
		if err != nil {
			t.Fatalf("curl %v: %v", args, err)
		}
		head, body, _ := strings.Cut(strings.ReplaceAll(string(out), "\r\n", "\n"), "\n\n")
		lines := strings.Split(head, "\n")
		var status int
		if f := strings.Fields(lines[0]); len(f) > 1 {
			status, _ = strconv.Atoi(f[1])
		}
		h := http.Header{}
		for _, l := range lines[1:] {
			if k, v, ok := strings.Cut(l, ":"); ok {
				h.Add(k, strings.TrimSpace(v))
			}
		}
		return status, h, body
	}
	login, _ := json.Marshal(map[string]string{"user": "admin", "password": strings.TrimSpace(string(pw))})
	if st, _, b := run("-H", "Content-Type: application/json", "-d", string(login), p.url+"/api/login"); st != 200 {
		t.Fatalf("login: %d %s", st, b)
	}
	list := p.url + "/api/list-dashboards"
	count := func(body string) int {
		var m struct {
			Result []any `json:"result"`
		}
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			return -1
		}
		return len(m.Result)
	}
	st, h, b := run(list)
	tag, before := h.Get("ETag"), count(b)
	if st != 200 || tag == "" || before < 0 {
		t.Fatalf("list-dashboards: %d %s, ETag %q", st, b, tag)
	}
	if st, _, b := run("-H", "If-None-Match: "+tag, list); st != 304 || b != "" {
		t.Fatalf("list-dashboards with its ETag: %d %q, want 304", st, b)
	}

	create := func(title string) (int, http.Header, string) {
		return run("-H", "Idempotency-Key: curl-1", "--data-urlencode", "title="+title, p.url+"/api/create-dashboard")
	}
	st, h, first := create("From curl")
	if st != 200 || h.Get("Idempotent-Replayed") != "" {
		t.Fatalf("create-dashboard: %d %v %s", st, h, first)
	}
	if st, h, b := create("From curl"); st != 200 || h.Get("Idempotent-Replayed") != "true" || b != first {
		t.Errorf("create-dashboard again: %d %v %s, want the first answer replayed", st, h, b)
	}
	if st, _, b := create("Another title"); st != 422 || !strings.Contains(b, "IDEMPOTENCY-KEY-REUSED") {
		t.Errorf("the key with another title: %d %s", st, b)
	}
	st, h, b = run("-H", "If-None-Match: "+tag, list)
	if st != 200 || count(b) != before+1 || h.Get("ETag") == tag {
		t.Errorf("list-dashboards after the change: %d %s, ETag %q (was %q): want one dashboard more and a new tag", st, b, h.Get("ETag"), tag)
	}
}
