package auth

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
	"go.uber.org/zap"
)

// Interceptor returns the interceptor that authenticates calls: for every function that is not
// public it reads the call's token and sets Call.Identity to an *Identity, or refuses the call
// with API-AUTHENTICATION-NEEDED (attribute path: the function) before its arguments are read;
// a caller whose role the function does not allow (see registry.Requires) gets PERMISSION-DENIED
// (not for a metered probe, registry.Call.Metered, which calls no function).
//
// Which token counts: for a function that needs a session, the session ID only; for the others,
// the API key when the call carries one, else the session ID. A session ID that came only in
// the cookie is refused when the browser marked the request cross-site, and for a function not
// marked [registry.ReadOnly], unless the browser said it comes from the server's own origin. A
// request that no browser marked (neither Sec-Fetch-Site nor Origin: curl -b, a cookie jar)
// cannot be a forgery and uses the cookie on every function. A session and a key of two
// different users are refused as conflicting. Public functions run without identity, whatever
// tokens they carry.
//
// A streaming call is registered with its token: when the token ends (revoked, logged out,
// expired, its user deleted), the call's context is cancelled with API-AUTHENTICATION-NEEDED
// as its cause, which the transport answers as the stream's end, whatever the function
// returns.
func (a *Authenticator) Interceptor() registry.Interceptor {
	return func(next registry.Handler) registry.Handler {
		return func(ctx context.Context, c *registry.Call) (any, error) {
			if c.Func.Access == decl.Public {
				return next(ctx, c)
			}
			id, e, err := a.identify(ctx, c)
			if err != nil {
				return nil, err
			}
			c.Identity = id
			// A metered probe stands for a request that calls no function: it needs a token,
			// not the function's role.
			if err := authorize(c, id); err != nil && !c.Metered() {
				return nil, err
			}
			if c.Sink() == nil {
				return next(ctx, c)
			}
			// The transport answers the cause the stream ends with (see watchStream).
			sctx, stop := a.watchStream(ctx, e, c)
			defer stop()
			return next(sctx, c)
		}
	}
}

// identify checks the call's token and returns who it belongs to. A call that carries both a
// session ID and an API key of two different users is refused.
func (a *Authenticator) identify(ctx context.Context, c *registry.Call) (*Identity, *entry, error) {
	cr := &c.Credentials
	useSession := c.Func.Access == decl.Session || cr.Key == ""
	if useSession && cr.SessionFromCookie {
		if err := cookieAllowed(c); err != nil {
			return nil, nil, err
		}
	}
	e, err := a.check(ctx, c, useSession)
	if err != nil {
		return nil, nil, err
	}
	if cr.Session != "" && cr.Key != "" {
		// The other token counts only to be compared: a stale one is no conflict.
		if o, err := a.check(ctx, c, !useSession); err == nil && o.user != e.user {
			return nil, nil, apierr.New(apierr.InvalidArgument, "name", "_key",
				"reason", "conflicting credentials: a session and an API key of two different users")
		}
	}
	return &Identity{User: e.user, Role: e.role, Admin: e.role == authapi.RoleAdmin, Session: e.session, KeyName: e.keyName, created: e.created, since: e.since}, e, nil
}

// cookieAllowed applies the rule of calls whose only token is the session cookie, which a
// browser adds by itself to requests that other pages make: refused when the browser marked
// the request cross-site; and unless the function is read-only ([registry.ReadOnly]), refused
// unless the browser said it comes from the server's own origin (or an allowed one), so that
// a page of a sibling site (same-site, other origin) cannot make it change anything. The
// transport counts a request without Sec-Fetch-Site and Origin as same-origin: no browser
// sent it, so no page can have made it (registry.Credentials.SameOrigin).
func cookieAllowed(c *registry.Call) error {
	cr := &c.Credentials
	switch {
	case cr.CrossSite:
		return needed(c).With("reason", "a cross-site request cannot use the session cookie")
	case !c.Func.ReadOnly && !cr.SameOrigin:
		return needed(c).With("reason", "with only the session cookie, a call that may change something "+
			"must come from the server's own origin (Sec-Fetch-Site: same-origin, or its Origin)")
	}
	return nil
}

// check returns the cached entry of the call's session ID (session) or API key, refusing a
// token that is not valid.
func (a *Authenticator) check(ctx context.Context, c *registry.Call, session bool) (*entry, error) {
	prefix, tok := KeyPrefix, c.Credentials.Key
	if session {
		prefix, tok = SessionPrefix, c.Credentials.Session
	}
	h, ok := hashToken(prefix, tok)
	if !ok {
		return nil, needed(c)
	}
	now := a.now().UnixNano()
	e, err := a.lookup(ctx, h, session, now)
	if err != nil {
		return nil, err
	}
	if e == nil {
		return nil, needed(c)
	}
	if session && a.expired(e, now) {
		a.cache.remove(h)
		if err := a.store.DeleteSession(ctx, h); err != nil {
			a.log.Warn("auth: removing an expired session", zap.Error(err))
		}
		return nil, needed(c)
	}
	if now-e.used.Load() > int64(time.Second) { // spare the shared cache line on busy tokens
		e.used.Store(now)
	}
	a.maybeFlush(now)
	return e, nil
}

func needed(c *registry.Call) *apierr.Error {
	e := apierr.New(apierr.AuthenticationNeeded, "path", c.Func.Name)
	if c.ArgsUnread() {
		e = e.With("reason", fmt.Sprintf("the body is larger than %d bytes: the token must come in the header, "+
			"the cookie or the query string", registry.DefaultMaxBody))
	}
	return e
}

// expired reports whether a session is past its idle timeout or its maximum lifetime.
func (a *Authenticator) expired(e *entry, now int64) bool {
	return now-e.used.Load() >= a.idle.Load() || now-e.created >= a.max.Load()
}

// lookup returns the cached token of hash h, reading the store when it is not cached or its
// cached copy is older than the cache TTL; nil when the token does not exist.
func (a *Authenticator) lookup(ctx context.Context, h Hash, session bool, now int64) (*entry, error) {
	e := a.cache.get(h)
	if e != nil && e.session == session && now-e.loaded.Load() < a.cacheTTL {
		return e, nil
	}
	gen := a.cache.gen.Load()
	fresh, err := a.load(ctx, h, session)
	if err != nil {
		return nil, apierr.New(apierr.Internal).Wrap(err)
	}
	if fresh == nil {
		if e != nil {
			a.cache.remove(h)
		}
		return nil, nil
	}
	fresh.loaded.Store(now)
	if e != nil && e.session == session && e.role != fresh.role {
		// Another process changed the role and its notification was lost: the entry goes,
		// with its streams, keeping its unrecorded uses for the next flush.
		a.forget(func(x *entry) bool { return x == e })
		e, gen = nil, a.cache.gen.Load()
	}
	if e != nil && e.session == session {
		// Keep the cached entry and its unrecorded uses; take a later use from the store.
		e.loaded.Store(now)
		if u := fresh.used.Load(); u > e.used.Load() {
			e.used.Store(u)
		}
		return e, nil
	}
	a.cache.put(fresh, gen)
	return fresh, nil
}

// load reads a session or key, and its user, from the store; nil when either is gone.
func (a *Authenticator) load(ctx context.Context, h Hash, session bool) (*entry, error) {
	e := &entry{hash: h, session: session}
	var used int64
	if session {
		s, err := a.store.Session(ctx, h)
		if errors.Is(err, ErrNotFound) {
			return nil, nil
		} else if err != nil {
			return nil, err
		}
		e.user, e.created, used = s.User, s.Created.UnixNano(), s.LastSeen.UnixNano()
	} else {
		k, err := a.store.Key(ctx, h)
		if errors.Is(err, ErrNotFound) {
			return nil, nil
		} else if err != nil {
			return nil, err
		}
		e.user, e.keyName, e.created = k.User, k.Name, k.Created.UnixNano()
		if !k.LastUsed.IsZero() {
			used = k.LastUsed.UnixNano()
		}
	}
	u, err := a.store.User(ctx, e.user)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	e.role, e.since = storedRole(u), unixNano(u.Created)
	e.used.Store(used)
	e.flushed.Store(used)
	return e, nil
}
