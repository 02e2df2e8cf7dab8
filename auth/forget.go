package auth

// Forget, ForgetUser and ForgetAll are the hook through which a store shared with other
// processes keeps this process's token cache true to it. A token checked once is trusted from
// the cache for the cache TTL (see WithCacheTTL); revocations made through this Authenticator
// take effect at once, but one made by another process sharing the store would wait out the
// TTL. A process that hears of such changes (package sqlstore's PostgreSQL triggers notify
// them) calls these so that the next call with the token reads the store again. Each is safe
// to call concurrently with calls being served. The last uses of the forgotten tokens not yet
// written to the store are kept for the next flush. The running streams of the forgotten
// tokens end at once with API-AUTHENTICATION-NEEDED (TestForgetEndsStreams).

// Forget drops the cached session or API key with hash h.
func (a *Authenticator) Forget(h Hash) {
	a.forget(func(e *entry) bool { return e.hash == h })
}

// ForgetUser drops the cached sessions and API keys of the user name: the user was deleted or
// changed.
func (a *Authenticator) ForgetUser(name string) {
	a.forget(func(e *entry) bool { return e.user == name })
}

// ForgetAll drops every cached token: when changes may have been missed (the notifications'
// connection was lost).
func (a *Authenticator) ForgetAll() {
	a.forget(func(*entry) bool { return true })
}

func (a *Authenticator) forget(match func(*entry) bool) {
	c := a.cache
	c.mu.Lock()
	for _, e := range c.m {
		if match(e) && e.used.Load() > e.flushed.Load() {
			c.pending = append(c.pending, e)
		}
	}
	c.mu.Unlock()
	c.drop(match)
}
