package auth_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/registry"
)

// bigJSON is a JSON body {"data":"aaa…"} of n bytes, made as it is read, with fields before
// data (such as `"_key":"…",`) when given.
func bigJSON(n int64, fields string) io.Reader {
	head := `{` + fields + `"data":"`
	pad := n - int64(len(head)) - 2
	return io.MultiReader(strings.NewReader(head), io.LimitReader(repeatA{}, pad), strings.NewReader(`"}`))
}

type repeatA struct{}

func (repeatA) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

// TestBodyLimits checks the per-function body limit and that a caller without a valid token
// never has the server read more than the default limit.
func TestBodyLimits(t *testing.T) {
	t.Parallel()
	e := newEnv(t, auth.NewMemoryStore())
	s := e.login("admin", adminPassword)
	k := e.createKey(s, "ci")
	const big = 64 << 20
	send := func(fn string, body io.Reader, length int64, mod func(*http.Request)) (response, int64) {
		t.Helper()
		req, err := http.NewRequest("POST", e.srv.URL+"/api/"+fn, body)
		if err != nil {
			t.Fatal(err)
		}
		req.ContentLength = length // -1: chunked, of unknown length
		req.Header.Set("Content-Type", "application/json")
		if mod != nil {
			mod(req)
		}
		before := e.read.Load()
		r := e.do(req)
		return r, e.read.Load() - before
	}
	tooLarge := func(t *testing.T, r response, limit int) {
		t.Helper()
		if r.status != 413 || r.code() != "REQUEST-TOO-LARGE" || r.msg["limit"] != float64(limit) {
			t.Fatalf("got %d %s", r.status, r.raw)
		}
	}
	for _, fn := range []string{"echo", "login"} {
		t.Run(fn+" with 64 MiB announced", func(t *testing.T) {
			r, read := send(fn, bigJSON(big, ""), big, nil)
			tooLarge(t, r, registry.DefaultMaxBody)
			if read != 0 {
				t.Fatalf("the server read %d bytes", read)
			}
		})
		t.Run(fn+" with 64 MiB chunked", func(t *testing.T) {
			r, read := send(fn, bigJSON(big, ""), -1, nil)
			tooLarge(t, r, registry.DefaultMaxBody)
			if read > registry.DefaultMaxBody+64<<10 {
				t.Fatalf("the server read %d bytes", read)
			}
		})
	}
	t.Run("large body without a token", func(t *testing.T) {
		for _, length := range []int64{big - 1, -1} {
			r, read := send("ingest", bigJSON(big-1, ""), length, nil)
			wantAuthNeeded(t, r, "ingest")
			if r.msg["reason"] == nil {
				t.Errorf("no reason: %s", r.raw)
			}
			if read > registry.DefaultMaxBody+64<<10 {
				t.Fatalf("length %d: the server read %d bytes before the token", length, read)
			}
		}
	})
	t.Run("large body with a wrong token", func(t *testing.T) {
		r, read := send("ingest", bigJSON(big-1, ""), big-1, header("Svc-Authorization", "secret:0b0c3a57-7c2e-4c54-9a4e-5f1d2c3b4a59"))
		wantAuthNeeded(t, r, "ingest")
		if read != 0 {
			t.Fatalf("the server read %d bytes", read)
		}
	})
	t.Run("large body with the token in the body", func(t *testing.T) {
		r, _ := send("ingest", bigJSON(4<<20, `"_key":"`+k+`",`), 4<<20, nil)
		wantAuthNeeded(t, r, "ingest")
	})
	t.Run("large body with a token in the header", func(t *testing.T) {
		for _, length := range []int64{big - 1, -1} {
			r, _ := send("ingest", bigJSON(big-1, ""), length, header("Svc-Authorization", k))
			if !r.ok() || r.msg["result"] != float64(big-1-len(`{"data":""}`)) {
				t.Fatalf("length %d: got %d %.200s", length, r.status, r.raw)
			}
		}
	})
	t.Run("large body with a token in a large body and another in the query", func(t *testing.T) {
		req := bigJSON(4<<20, `"_key":"`+k+`",`)
		r, _ := send("ingest?_key="+k, req, 4<<20, nil)
		if r.status != 400 || r.code() != "INVALID-ARGUMENT" || r.msg["name"] != "_key" {
			t.Fatalf("got %d %s", r.status, r.raw)
		}
	})
	t.Run("small body with the token in it", func(t *testing.T) {
		r, _ := send("ingest", bytes.NewReader([]byte(`{"_key":"`+k+`","data":"abc"}`)), -1, nil)
		if !r.ok() || r.msg["result"] != 3.0 {
			t.Fatalf("got %d %s", r.status, r.raw)
		}
	})
	t.Run("past the function's limit", func(t *testing.T) {
		r, read := send("ingest", bigJSON(big+1, ""), big+1, header("Svc-Authorization", k))
		tooLarge(t, r, big)
		if read != 0 {
			t.Fatalf("the server read %d bytes", read)
		}
	})
}
