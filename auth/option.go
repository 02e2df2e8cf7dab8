package auth

import (
	"time"

	"go.uber.org/zap"
)

// Option configures New.
type Option func(*config)

type config struct {
	log        *zap.Logger
	now        func() time.Time
	idle, max  time.Duration
	cacheTTL   time.Duration
	cacheMax   int
	flushEvery time.Duration
	argon2     Argon2
	hashes     int
	userLimit  Limit
	addrLimit  Limit
	maxKeys    int
	adminPass  string
}

// WithLogger logs logins, user changes and store failures to l; never a password, a session ID
// or a key. Default: no logging.
func WithLogger(l *zap.Logger) Option { return func(c *config) { c.log = l } }

// WithSessionIdle ends a session that has not been used for d. Default: 1 h. It can be changed
// while serving with SetSessionLimits.
func WithSessionIdle(d time.Duration) Option { return func(c *config) { c.idle = d } }

// WithSessionMax ends every session d after its login, used or not. Default: 24 h. It can be
// changed while serving with SetSessionLimits.
func WithSessionMax(d time.Duration) Option { return func(c *config) { c.max = d } }

// WithCacheTTL sets how long a checked token is trusted before the store is read again.
// Revocations, logouts and user deletions made through this Authenticator take effect on the
// next call regardless; those made by another server sharing the store take up to d.
// Default: 2 s.
func WithCacheTTL(d time.Duration) Option { return func(c *config) { c.cacheTTL = d } }

// WithCacheSize bounds the number of tokens held in the cache. Default: 10000.
func WithCacheSize(n int) Option { return func(c *config) { c.cacheMax = n } }

// WithFlushInterval sets how often the last use of sessions and keys is written to the store,
// in one batch: calls never wait for a write. After a crash the store may have last-use times
// up to d old, so a session may end up to d early. Default: 15 s.
func WithFlushInterval(d time.Duration) Option { return func(c *config) { c.flushEvery = d } }

// WithArgon2 sets the cost of password hashing. Zero fields keep their defaults (see Argon2).
// Passwords hashed at another cost still verify, and are rehashed at the new cost on the next
// successful login.
func WithArgon2(p Argon2) Option { return func(c *config) { c.argon2 = p } }

// WithConcurrentHashes bounds how many password hashes run at once (each takes Argon2.Memory).
// Default: the number of CPUs (GOMAXPROCS).
func WithConcurrentHashes(n int) Option { return func(c *config) { c.hashes = n } }

// WithLoginLimits sets the budgets of failed password attempts: perUser for a user name from
// each client address (IPv4 address or IPv6 /64), and for a user name across the addresses
// that have not logged in as that user within 30 days; perAddr for a client address, whatever
// the user. Past them, login answers RATE-LIMITED with retry_after. Default: 5 per user then
// one every 30 s; 20 per address then one every 3 s.
func WithLoginLimits(perUser, perAddr Limit) Option {
	return func(c *config) { c.userLimit, c.addrLimit = perUser, perAddr }
}

// DefaultMaxKeys is how many API keys one user may hold unless WithMaxKeys says otherwise.
const DefaultMaxKeys = 100

// WithMaxKeys bounds the API keys one user holds: past n, create-api-key answers CONFLICT
// (HTTP 409) with limit n and a reason saying to revoke a key first. Calls running at once
// may each pass the check, so a user may exceed n by as many. Default: DefaultMaxKeys.
func WithMaxKeys(n int) Option { return func(c *config) { c.maxKeys = n } }

// WithAdminPassword sets the password EnsureAdmin gives the administrator it creates, in
// place of the environment variable AdminPasswordEnv: for a program that holds it from
// elsewhere, and for tests that run side by side. Default: the variable, or a generated one.
func WithAdminPassword(p string) Option { return func(c *config) { c.adminPass = p } }

// WithClock makes the Authenticator read the time from now, for tests. Default: time.Now.
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }
