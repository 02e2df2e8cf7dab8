package auth

import (
	"context"
	"errors"
	"math"
	"net/http"

	"github.com/fnapi/fnapi/auth/authapi"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/registry"
	"go.uber.org/zap"
)

// login checks a password and starts a session.
func (a *Authenticator) login(ctx context.Context, in authapi.LoginArgs) (string, error) {
	c := callOf(ctx)
	u, err := a.checkPassword(ctx, in.User, in.Password, c.Client())
	if err != nil {
		return "", err
	}
	gen := a.cache.gen.Load()
	tok, h, err := newToken(SessionPrefix)
	if err != nil {
		return "", err
	}
	now := a.now().UTC()
	if err := a.store.CreateSession(ctx, Session{Hash: h, User: u.Name, Created: now, LastSeen: now}); err != nil {
		if errors.Is(err, ErrNotFound) { // deleted meanwhile
			return "", apierr.New(apierr.InvalidCredentials)
		}
		return "", apierr.New(apierr.Internal).Wrap(err)
	}
	e := &entry{hash: h, session: true, user: u.Name, role: storedRole(u), created: now.UnixNano(), since: unixNano(u.Created)}
	e.loaded.Store(now.UnixNano())
	e.used.Store(now.UnixNano())
	e.flushed.Store(now.UnixNano())
	a.cache.put(e, gen)
	// The cookie is set only for a page of the server's own origin, or a client that is no
	// browser (no Sec-Fetch-Site, no Origin: curl -c, a cookie jar): a page of another site,
	// even a sibling, could otherwise sign the browser in as someone else (login forgery).
	// Other callers read the session ID from the answer.
	if c.Credentials.SameOrigin {
		c.SetCookie(&http.Cookie{Name: a.cookieName(c), Value: tok, Path: "/", HttpOnly: true, Secure: true,
			SameSite: http.SameSiteStrictMode})
	}
	a.log.Info("auth: login", zap.String("user", u.Name))
	return tok, nil
}

// checkPassword returns the user if password is theirs. It answers INVALID-CREDENTIALS alike,
// and in about the same time, for an unknown user and a wrong password, and RATE-LIMITED past
// the login limits.
func (a *Authenticator) checkPassword(ctx context.Context, user, password, addr string) (User, error) {
	if w := a.throttle.begin(user, addr, a.now()); w > 0 {
		return User{}, apierr.New(apierr.RateLimited, "retry_after", int(math.Ceil(w.Seconds())))
	}
	u, err := a.store.User(ctx, user)
	known := err == nil
	hash := u.PasswordHash
	switch {
	case errors.Is(err, ErrNotFound):
		hash = a.dummy // pay the same hash as for a known user
	case err != nil:
		return User{}, apierr.New(apierr.Internal).Wrap(err)
	}
	ok, rehash, err := a.hasher.check(ctx, hash, password)
	if err != nil {
		if ctx.Err() != nil {
			return User{}, ctx.Err()
		}
		return User{}, apierr.New(apierr.Internal).Wrap(err)
	}
	if !ok || !known {
		if known { // an unknown name may be a password typed in the wrong field: never log it
			a.log.Info("auth: wrong password", zap.String("user", user), zap.String("client", addr))
		} else {
			a.log.Info("auth: login for an unknown user", zap.String("client", addr))
		}
		return User{}, apierr.New(apierr.InvalidCredentials)
	}
	a.throttle.succeeded(user, addr, a.now())
	if rehash {
		if h, err := a.hasher.hash(ctx, password); err == nil {
			if err := a.store.SetPassword(ctx, user, h); err != nil {
				a.log.Warn("auth: rehashing a password", zap.String("user", user), zap.Error(err))
			}
		}
	}
	return u, nil
}

// logout ends the call's session.
func (a *Authenticator) logout(ctx context.Context) (bool, error) {
	c := callOf(ctx)
	h, ok := hashToken(SessionPrefix, c.Credentials.Session)
	if !ok {
		return false, needed(c)
	}
	if err := a.store.DeleteSession(ctx, h); err != nil {
		return false, apierr.New(apierr.Internal).Wrap(err)
	}
	a.cache.remove(h)
	c.SetCookie(&http.Cookie{Name: a.cookieName(c), Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: true,
		SameSite: http.SameSiteStrictMode})
	return true, nil
}

// callOf returns the call of ctx; an empty one when a function is called outside a transport.
func callOf(ctx context.Context) *registry.Call {
	if c := registry.CallFrom(ctx); c != nil {
		return c
	}
	return &registry.Call{Func: &registry.Func{}}
}

// identity returns the caller; the interceptor guarantees one for functions that need a token.
func identity(ctx context.Context) (*Identity, error) {
	id := FromContext(ctx)
	if id == nil {
		return nil, needed(callOf(ctx))
	}
	return id, nil
}

// cookieName is the name of the session cookie for call c: the transport's, the one setting
// (fnapi.WithNames) every part reads.
func (a *Authenticator) cookieName(c *registry.Call) string {
	return c.Names().SessionCookie
}
