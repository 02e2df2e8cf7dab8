package auth

import (
	"context"
	"errors"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/registry"
	"go.uber.org/zap"
)

// Interceptor returns the interceptor that authenticates calls: for every function that is not
// public it reads the call's token and sets Call.Identity to an *Identity, or refuses the call
// with API-AUTHENTICATION-NEEDED (attribute path: the function) before its arguments are read;
// a caller whose role the function does not allow (see Requires) gets PERMISSION-DENIED.
//
// Which token counts: for a function that needs a session, the session ID only; for the others,
// the API key when the call carries one, else the session ID. A session ID that came only in
// the cookie is refused when the browser marked the request cross-site. Public functions run
// without identity, whatever tokens they carry.
func (a *Authenticator) Interceptor() registry.Interceptor {
	return func(next registry.Handler) registry.Handler {
		return func(ctx context.Context, c *registry.Call) (any, error) {
			if c.Func.Access == registry.Public {
				return next(ctx, c)
			}
			id, err := a.identify(ctx, c)
			if err != nil {
				return nil, err
			}
			c.Identity = id
			if err := authorize(c, id); err != nil {
				return nil, err
			}
			return next(ctx, c)
		}
	}
}

// identify checks the call's token and returns who it belongs to.
func (a *Authenticator) identify(ctx context.Context, c *registry.Call) (*Identity, error) {
	cr := &c.Credentials
	var (
		prefix, tok string
		session     bool
	)
	switch {
	case c.Func.Access == registry.Session || cr.Key == "":
		if cr.SessionFromCookie && cr.CrossSite {
			return nil, needed(c)
		}
		prefix, tok, session = SessionPrefix, cr.Session, true
	default:
		prefix, tok = KeyPrefix, cr.Key
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
	return &Identity{User: e.user, Role: e.role, Admin: e.role == RoleAdmin, Session: e.session, KeyName: e.keyName}, nil
}

func needed(c *registry.Call) error {
	return apierr.New(apierr.AuthenticationNeeded, "path", c.Func.Name)
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
	e.role = storedRole(u)
	e.used.Store(used)
	e.flushed.Store(used)
	return e, nil
}
