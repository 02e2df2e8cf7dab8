package sqlstore_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/auth/sqlstore"
	"github.com/fnapi/fnapi/transport"
)

// clock is a test's settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// idemStores returns two stores over one SQLite database, as two nodes over one shared
// database, with the options o and a test clock.
func idemStores(t *testing.T, o sqlstore.IdempotencyOptions) (a, b *sqlstore.Idempotency, clk *clock) {
	t.Helper()
	clk = &clock{t: time.Unix(1_800_000_000, 0)}
	o.Now = clk.now
	o.Poll = time.Millisecond
	path := filepath.Join(t.TempDir(), "idem.db")
	open := func() *sqlstore.Idempotency {
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		s, err := sqlstore.NewIdempotency(context.Background(), db, o)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	return open(), open(), clk
}

func fp(s string) (f [32]byte) { copy(f[:], s); return f }

func TestIdempotencyReplayAcrossNodes(t *testing.T) {
	t.Parallel()
	n1, n2, _ := idemStores(t, sqlstore.IdempotencyOptions{})
	ctx := context.Background()
	if a, err := n1.Begin(ctx, "user:ann", "k", fp("x")); a != nil || err != nil {
		t.Fatalf("first Begin = %v, %v; want a claim", a, err)
	}
	// A repeat on the other node while the call runs waits, then gets the answer.
	got := make(chan *transport.IdempotentAnswer, 1)
	go func() {
		a, err := n2.Begin(ctx, "user:ann", "k", fp("x"))
		if err != nil {
			t.Error(err)
		}
		got <- a
	}()
	// Another caller's same key is another key; other arguments are refused while it runs.
	if a, err := n2.Begin(ctx, "user:bob", "k", fp("y")); a != nil || err != nil {
		t.Fatalf("another caller's key = %v, %v; want a claim of its own", a, err)
	}
	n2.Finish("user:bob", "k", nil)
	if _, err := n2.Begin(ctx, "user:ann", "k", fp("y")); !errors.Is(err, apierr.New(apierr.IdempotencyKeyReused)) {
		t.Fatalf("other arguments while it runs = %v, want IDEMPOTENCY-KEY-REUSED", err)
	}
	want := &transport.IdempotentAnswer{Status: 201, Body: []byte(`{"type":"result","result":7}`), RetryAfter: "3"}
	n1.Finish("user:ann", "k", want)
	if a := <-got; a == nil || a.Status != 201 || string(a.Body) != string(want.Body) || a.RetryAfter != "3" {
		t.Fatalf("the waiting repeat got %+v, want the first answer", a)
	}
	if _, err := n2.Begin(ctx, "user:ann", "k", fp("y")); !errors.Is(err, apierr.New(apierr.IdempotencyKeyReused)) {
		t.Fatalf("other arguments once answered = %v, want IDEMPOTENCY-KEY-REUSED", err)
	}
}

func TestIdempotencyWaitEndsWithContext(t *testing.T) {
	t.Parallel()
	n1, n2, _ := idemStores(t, sqlstore.IdempotencyOptions{})
	if _, err := n1.Begin(context.Background(), "user:ann", "k", fp("x")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := n2.Begin(ctx, "user:ann", "k", fp("x")); done <- err }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("a waiting repeat whose caller left = %v, want context.Canceled", err)
	}
	// A claim that ends with nothing kept frees the key: the repeat runs.
	n1.Finish("user:ann", "k", nil)
	if a, err := n2.Begin(context.Background(), "user:ann", "k", fp("x")); a != nil || err != nil {
		t.Fatalf("Begin after an abandoned claim = %v, %v; want a claim", a, err)
	}
}

func TestIdempotencyBounds(t *testing.T) {
	t.Parallel()
	n1, n2, clk := idemStores(t, sqlstore.IdempotencyOptions{MaxKeysPerCaller: 2, ClaimTimeout: time.Minute})
	ctx := context.Background()
	answer := &transport.IdempotentAnswer{Status: 200, Body: []byte(`{}`)}
	claim := func(s *sqlstore.Idempotency, key string) bool {
		t.Helper()
		a, err := s.Begin(ctx, "user:ann", key, fp("x"))
		if err != nil {
			t.Fatal(err)
		}
		return a == nil
	}

	// A claim whose node died is taken over past ClaimTimeout; the late node's answer is not
	// kept over the new claim's.
	if !claim(n1, "dead") {
		t.Fatal("no claim")
	}
	clk.add(time.Minute + time.Second)
	if !claim(n2, "dead") {
		t.Fatal("a claim past ClaimTimeout was not taken over")
	}
	n1.Finish("user:ann", "dead", &transport.IdempotentAnswer{Status: 500, Body: []byte(`late`)})
	n2.Finish("user:ann", "dead", answer)
	if a, _ := n1.Begin(ctx, "user:ann", "dead", fp("x")); a == nil || string(a.Body) != "{}" {
		t.Fatalf("replay = %+v, want the answer of the claim that took over", a)
	}

	// Kept 24 hours.
	clk.add(transport.IdempotencyTTL - time.Second)
	if claim(n1, "dead") {
		t.Fatal("an answer was dropped before 24 hours")
	}
	clk.add(time.Second)
	if !claim(n1, "dead") {
		t.Fatal("an answer was kept past 24 hours")
	}
	n1.Finish("user:ann", "dead", answer)

	// At most MaxKeysPerCaller answers per caller: the oldest is dropped.
	for _, k := range []string{"b", "c"} {
		clk.add(time.Second)
		if !claim(n1, k) {
			t.Fatalf("no claim of %s", k)
		}
		n1.Finish("user:ann", k, answer)
	}
	if !claim(n2, "dead") {
		t.Fatal("the caller's oldest answer was kept past MaxKeysPerCaller")
	}
	if claim(n2, "c") {
		t.Fatal("the caller's newest answer was dropped")
	}
}
