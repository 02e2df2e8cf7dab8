package app_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// stalled is a body whose first bytes arrive and the rest never does: a server that reads it
// waits until the client gives up.
type stalled struct {
	head string
	ctx  context.Context
}

func (b *stalled) Read(p []byte) (int, error) {
	if b.head != "" {
		n := copy(p, b.head)
		b.head = b.head[n:]
		return n, nil
	}
	<-b.ctx.Done()
	return 0, b.ctx.Err()
}

// TestBodyLimits checks that only ingest takes more than 1 MiB, and that a caller without a
// token cannot make the server read a large body: ingest refuses it before reading it.
func TestBodyLimits(t *testing.T) {
	t.Parallel()
	s := start(t)
	post := func(fn string, body io.Reader, length int64, key string) map[string]any {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if st, ok := body.(*stalled); ok {
			st.ctx = ctx
		}
		req, _ := http.NewRequestWithContext(ctx, "POST", s.api+"/"+fn, body)
		req.ContentLength = length
		req.Header.Set("Content-Type", "application/json")
		if key != "" {
			req.Header.Set("Svc-Authorization", key)
		}
		res, err := s.srv.Client().Do(req)
		if err != nil {
			t.Fatalf("%s: %v (the server waited for the body)", fn, err)
		}
		defer res.Body.Close()
		var m map[string]any
		if err := json.NewDecoder(res.Body).Decode(&m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	const big = 64 << 20
	for _, fn := range []string{"echo", "login", "query"} {
		if m := post(fn, &stalled{head: `{"a":"`}, big, s.key); m["error"] != "REQUEST-TOO-LARGE" || m["limit"] != float64(1<<20) {
			t.Errorf("%s with 64 MiB: %v", fn, m)
		}
	}
	if m := post("ingest", &stalled{head: `{"records":[`}, big, ""); m["error"] != "API-AUTHENTICATION-NEEDED" {
		t.Errorf("ingest of 64 MiB without a token: %v", m)
	}
	if m := post("ingest", &stalled{head: `{"records":[`}, big+1, s.key); m["error"] != "REQUEST-TOO-LARGE" || m["limit"] != float64(big) {
		t.Errorf("ingest past 64 MiB: %v", m)
	}
	pad := strings.Repeat(" ", 2<<20) // 2 MiB of JSON space: more than any other function takes
	body := `{"records":[]` + pad + `}`
	if m := post("ingest", strings.NewReader(body), int64(len(body)), s.key); m["type"] != "result" {
		t.Errorf("ingest of 2 MiB with a key: %v", m)
	}
}
