// Package auth gives an fnapi server users, sessions and API keys that are safe by default.
//
// An Authenticator holds them in a Store (MemoryStore here; package
// github.com/fnapi/fnapi/auth/sqlstore keeps them in SQLite), checks the token of every call
// through its Interceptor, and serves the identity functions registered by Register:
//
//	store := auth.NewMemoryStore()
//	a, err := auth.New(store, auth.WithLogger(log))
//	if err != nil { ... }
//	defer a.Close(ctx)
//	a.MustRegister(reg)            // login, logout, create-api-key, ...
//	if err := a.EnsureAdmin(ctx, dataDir); err != nil { ... }
//	api, err := fnapi.New(reg, fnapi.WithInterceptors(a.Interceptor()))
//
// The identity functions are declared in package authapi (their names, argument and result
// types, versions and access) and Register implements those declarations, so a Go client
// calls them with client.Call(ctx, c, authapi.Login, authapi.LoginArgs{...}) without importing
// this package, its stores or their drivers.
//
// # Tokens
//
// A session ID is "session:<uuid>", made by login and valid until logout, an idle timeout
// (default 1 h) or a maximum lifetime (default 24 h), both changeable while serving with
// SetSessionLimits. An API key is "secret:<uuid>", made by create-api-key (which needs a
// session, not a key), named uniquely per user, shown once and valid until revoked. The UUIDs
// are random (version 4): 122 bits from crypto/rand. Stores only ever see the SHA-256 hash of a
// token (a slow hash adds nothing for 122 random bits), found by that hash and compared in
// constant time; no token is ever logged.
//
// The transport reads tokens from the session cookie (Svc-Session), the _session argument, the
// Svc-Authorization header and the _key argument. The transport's configuration names the
// cookie and the header (fnapi.WithNames); login sets the cookie the call's transport names.
// A function needing a session accepts only a session ID; other functions take the API key when the call has one, else the session ID. A
// call whose only token is the cookie is refused when the browser marks it cross-site
// (Sec-Fetch-Site: cross-site, or a foreign Origin): with cookies a page of another site could
// otherwise call the API as its visitor. Unless its function is declared read-only
// (registry.ReadOnly), such a call is also refused unless the browser says it comes from the
// server's own origin (Sec-Fetch-Site: same-origin, or without Sec-Fetch-Site an Origin equal
// to the server's, scheme included, or an allowed one): a page of a sibling subdomain is
// same-site but not same-origin, and must not change anything as the visitor. Every function
// is taken to change something unless marked read-only, so a forgotten mark errs on the safe
// side. Both refusals answer API-AUTHENTICATION-NEEDED with a reason. A request with neither
// Sec-Fetch-Site nor Origin comes from no browser (every current one sends one of them), so it
// cannot be a forgery: it is taken as the server's own origin, and a cookie jar (curl -b, a
// Python requests.Session) uses the cookie on every function, as Go's
// http.CrossOriginProtection decides. A call carrying a
// session ID and an API key of two different users is refused with INVALID-ARGUMENT
// ("conflicting credentials"); a stale second token is no conflict. A missing, malformed,
// unknown, expired or revoked token answers API-AUTHENTICATION-NEEDED with path, before any
// argument is read.
//
// login sets the cookie HttpOnly, Secure, SameSite=Strict, Path=/, without Expires (it ends
// with the browser session), only for a request from the server's own origin or from no
// browser (the same rule as above): a page of another site, even a sibling, cannot sign the
// browser in as someone else. Every caller also finds the session ID in the answer.
//
// # Cost of a call
//
// A checked token is cached (see WithCacheTTL): a call with a known token costs a SHA-256 and
// a map read, about a microsecond. Last uses are recorded in memory and written to the store in
// one batch every flush interval (WithFlushInterval), never during a call. Logout, revocation,
// password changes and user deletion made through an Authenticator take effect at once on it;
// another server sharing the store sees them within the cache TTL (default 2 s), or at once
// when it is told of them and calls Forget, ForgetUser or ForgetAll (package sqlstore's
// PostgreSQL store notifies them; the example data service listens). They reach running
// streams too (HTTP and WebSocket): a stream ends with API-AUTHENTICATION-NEEDED as soon as its
// token ends, whether by revoke-api-key, logout, a session's maximum lifetime (checked four
// times a second), delete-user, or, done through another server, once the cache TTL has passed
// or at once when this server is told (Forget, ForgetUser and ForgetAll end the streams of the
// tokens they drop, so that a user changed through another server, its role say, has its
// streams ended as set-role ends them here). A running stream counts as a use of its session
// for the idle timeout.
//
// # Passwords
//
// Passwords are hashed with argon2id (19 MiB, 2 iterations by default; see WithArgon2), at
// most GOMAXPROCS hashes at once. login answers INVALID-CREDENTIALS for an unknown user and a
// wrong password alike, and hashes against a dummy hash for an unknown user so that both take
// the same time. Failed attempts are throttled (see WithLoginLimits), and an attempt is paid for
// before the password is checked, so parallel guesses gain nothing; past a budget, RATE-LIMITED
// with retry_after in seconds. The budgets:
//
//   - per client address (an IPv6 client counts by its /64): 20, then one every 3 s;
//   - per user name from each address: 5, then one every 30 s;
//   - per user name across the addresses not known for the user: 5, then one every 30 s. An
//     address is known for a user once it logged in as that user, for 30 days.
//
// So an attacker guessing a user's password from other addresses, however many, runs out of
// the shared budget of unknown addresses, while the user still logs in from the addresses
// they used before; only a first login from a new address waits out the attack. A successful
// login gives its attempt back and clears the failures of its user and address.
//
// # Who may do what
//
// Every user has a Role: authapi.RoleReadOnly ("read-only"), authapi.RoleUser ("user", the default) or
// authapi.RoleAdmin ("administrator"), each allowed all the one before it is. A function states the
// role it needs at registration with registry.Requires(authapi.RoleAdmin) (shown by doc
// as "role"); the Interceptor checks it after the token and before the arguments, and answers
// PERMISSION-DENIED (HTTP 403, attributes path and role) to a caller below it. A function that
// needs a token and names no role needs authapi.RoleUser, so that a function added without thought is
// never open to read-only users. An API key has exactly its user's rights, and a role changed
// with set-role applies to the user's sessions and keys at once (on other servers sharing the
// store, within the cache TTL).
//
// Of the identity functions, read-only users may log out, make, list and revoke their own API
// keys and change their password (it needs the current one, and ends the caller's other
// sessions; API keys stay valid). Only administrators list the users, create them (with a
// role), change their roles, delete them, and list or revoke other users' keys. Nobody
// deletes themselves or changes their own role, and the Store refuses (ErrLastAdmin, answered
// CONFLICT) a change that would leave no administrator, in the transaction that makes it, so
// at least one administrator always remains, even when two demote each other at once.
// Deleting a user ends its sessions and keys at once. A user holds at most WithMaxKeys API
// keys (default DefaultMaxKeys, 100).
//
// # First start
//
// EnsureAdmin creates the administrator "admin" when the store is empty, with the password in
// SVC_ADMIN_PASSWORD or else a generated one written to <data>/admin-password (mode 0600); the
// log says where, never what.
package auth
