package auth_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/fnapi/fnapi/auth"
)

// loginFrom logs in from the loopback address ip (127.0.0.0/8 is all loopback on Linux).
func (e *env) loginFrom(ip, user, password string) response {
	e.t.Helper()
	tr := e.srv.Client().Transport.(*http.Transport).Clone()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}
	defer tr.CloseIdleConnections()
	b, _ := json.Marshal(map[string]string{"user": user, "password": password})
	req, _ := http.NewRequest("POST", e.srv.URL+"/api/login", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	probe, err := d.DialContext(e.t.Context(), "tcp", e.srv.Listener.Addr().String())
	if err != nil {
		e.t.Skipf("cannot connect from %s: %v", ip, err)
	}
	probe.Close()
	return e.doWith(&http.Client{Transport: tr}, req)
}

// TestLoginNotDeniedByOthers checks that wrong passwords from other addresses, however many,
// do not lock a user out of an address they logged in from, while the attackers themselves
// are held to the user's budget.
func TestLoginNotDeniedByOthers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, auth.NewMemoryStore(),
		auth.WithLoginLimits(auth.Limit{Burst: 3, Every: 30 * time.Second}, auth.Limit{Burst: 6, Every: 10 * time.Second}))
	const own = "127.0.0.1"
	if r := e.loginFrom(own, "admin", adminPassword); !r.ok() {
		t.Fatal(r.raw)
	}
	limited := 0
	for i := 0; i < 8; i++ { // eight attacking addresses, two guesses each, then again later
		for j := 0; j < 2; j++ {
			r := e.loginFrom("127.0.1."+strconv.Itoa(i+1), "admin", "guess")
			switch r.code() {
			case "RATE-LIMITED":
				limited++
			case "INVALID-CREDENTIALS":
			default:
				t.Fatalf("attacker: %s", r.raw)
			}
		}
	}
	if limited != 16-3 {
		t.Fatalf("%d of 16 guesses from unknown addresses limited, want all past the user's 3", limited)
	}
	for i := 0; i < 3; i++ {
		if r := e.loginFrom(own, "admin", adminPassword); !r.ok() {
			t.Fatalf("from its own address, login %d: %s", i, r.raw)
		}
		e.clock.advance(30 * time.Second) // one more guess for the attackers
		if r := e.loginFrom("127.0.1.1", "admin", "guess"); r.code() != "INVALID-CREDENTIALS" {
			t.Fatalf("attacker after 30 s: %s", r.raw)
		}
	}
	// An address unknown for the user shares the attackers' budget: documented.
	if r := e.loginFrom("127.0.2.1", "admin", adminPassword); r.code() != "RATE-LIMITED" {
		t.Fatalf("from a new address during the attack: %s", r.raw)
	}
	// Wrong passwords from the user's own address still count against that address.
	for i := 0; i < 3; i++ {
		e.loginFrom(own, "admin", "typo")
	}
	if r := e.loginFrom(own, "admin", adminPassword); r.code() != "RATE-LIMITED" {
		t.Fatalf("own address after 3 typos: %s", r.raw)
	}
}
