// Package cluster lets several nodes of the data service share one PostgreSQL database and act
// as one service behind a load balancer:
//
//   - A Listener receives the notifications PostgreSQL sends at the commit of a change other
//     nodes must see at once: a session ended, an API key revoked, a user changed or deleted
//     (package sqlstore's triggers, channel sqlstore.Channel), and a configuration change
//     (package state's, channel statedb.ConfigChannel). The application hands them to the
//     authenticator's Forget methods and to the settings' Reload; after a lost connection it
//     drops every cached token and re-reads the configuration, since notifications were missed.
//   - A Lease runs a piece of background work (the demo generator, retention of shared records)
//     on one node at a time, moving it to another node when the holder dies.
//   - Unreachable and Interceptor turn a database that cannot be reached into UNAVAILABLE (503),
//     which clients may retry, rather than INTERNAL-ERROR.
//
// PostgreSQL is reached with pgx (github.com/jackc/pgx/v5), the maintained PostgreSQL driver
// for Go, which carries LISTEN/NOTIFY natively; it is a dependency of the example module only.
package cluster
