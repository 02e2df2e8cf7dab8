package auth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
)

// benchAuth returns an Authenticator with one user, a key and a session, both checked once so
// that they are cached.
func benchAuth(b *testing.B) (a *Authenticator, key, session string) {
	ctx := context.Background()
	store := NewMemoryStore()
	a, err := New(store, WithArgon2(Argon2{Memory: 64, Iterations: 1}), WithCacheTTL(time.Hour))
	if err != nil {
		b.Fatal(err)
	}
	if err := a.CreateUser(ctx, "ann", "ann's password", authapi.RoleUser); err != nil {
		b.Fatal(err)
	}
	key, kh, _ := newToken(KeyPrefix)
	session, sh, _ := newToken(SessionPrefix)
	now := time.Now()
	_ = store.CreateKey(ctx, Key{Hash: kh, User: "ann", Name: "k", Created: now})
	_ = store.CreateSession(ctx, Session{Hash: sh, User: "ann", Created: now, LastSeen: now})
	return a, key, session
}

// BenchmarkTokenCheck measures what the interceptor adds to a call with a cached token.
func BenchmarkTokenCheck(b *testing.B) {
	a, key, session := benchAuth(b)
	h := a.Interceptor()(func(context.Context, *registry.Call) (any, error) { return nil, nil })
	f := &registry.Func{Name: "f"}
	for _, bc := range []struct {
		name string
		cr   registry.Credentials
	}{
		{"key", registry.Credentials{Key: key}},
		{"session", registry.Credentials{Session: session}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			c := &registry.Call{Func: f, Credentials: bc.cr}
			if _, err := h(ctx, c); err != nil || c.Identity == nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				c.Identity = nil
				if _, err := h(ctx, c); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bc.name+"/parallel", func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				ctx := context.Background()
				c := &registry.Call{Func: f, Credentials: bc.cr}
				for pb.Next() {
					if _, err := h(ctx, c); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkLogin measures login's password check at the default argon2id cost.
func BenchmarkLogin(b *testing.B) {
	ctx := context.Background()
	a, err := New(NewMemoryStore(), WithLoginLimits(Limit{Burst: 1 << 30, Every: time.Second}, Limit{Burst: 1 << 30, Every: time.Second}))
	if err != nil {
		b.Fatal(err)
	}
	if err := a.CreateUser(ctx, "ann", "ann's password", authapi.RoleUser); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := a.checkPassword(ctx, "ann", "ann's password", "10.0.0.1"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCall measures whole calls through the HTTP handler (no network): a public function
// without a token, and functions that need a token carried by the header or the cookie. The
// differences are what authentication adds to a call.
func BenchmarkCall(b *testing.B) {
	a, key, session := benchAuth(b)
	reg := registry.New()
	reg.MustRegister("public", func() int { return 1 }, registry.Requires(decl.Public))
	reg.MustRegister("private", func() int { return 1 })
	api, err := fnapi.New(reg, fnapi.WithInterceptors(a.Interceptor()))
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name, path string
		set        func(*http.Request)
	}{
		{"public", "/public", func(*http.Request) {}},
		{"key", "/private", func(r *http.Request) { r.Header.Set("Svc-Authorization", key) }},
		{"session cookie", "/private", func(r *http.Request) {
			r.AddCookie(&http.Cookie{Name: "Svc-Session", Value: session})
			r.Header.Set("Sec-Fetch-Site", "same-origin") // as from a page of the server's origin
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req := httptest.NewRequest("GET", bc.path, nil)
			bc.set(req)
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				api.ServeHTTP(w, req)
				if w.Code != 200 {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
		})
	}
}
