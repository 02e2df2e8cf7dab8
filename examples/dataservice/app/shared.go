package app

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/auth/sqlstore"
	"github.com/fnapi/fnapi/examples/dataservice/cluster"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/state/statedb"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"go.uber.org/zap"
)

// openShared opens the stores the nodes of a service share: users, sessions and keys (auth),
// and dashboards, widgets and configuration (state). In PostgreSQL with Config.Postgres, else
// in the SQLite files auth.db and state.db of the data directory.
func (a *App) openShared(ctx context.Context) (err error) {
	// The stores go into a's fields only once open: an interface holding a nil pointer would
	// not be nil to closeStores after a failure.
	if a.cfg.Postgres == "" {
		st, err := statedb.OpenSQLite(ctx, a.cfg.DataDir)
		if err != nil {
			return fmt.Errorf("app: %w", err) // state's errors say "state: ..."
		}
		a.state = st
		if a.users, err = sqlstore.Open(ctx, filepath.Join(a.cfg.DataDir, "auth.db")); err != nil {
			return fmt.Errorf("app: users: %w", err)
		}
		return nil
	}
	cfg, err := ParsePostgresURL(a.cfg.Postgres)
	if err != nil {
		return err
	}
	st, err := statedb.OpenPostgres(ctx, a.cfg.Postgres)
	if err != nil {
		return fmt.Errorf("app: %w", err) // state's errors say "state: ..."
	}
	a.state = st
	a.usersDB = stdlib.OpenDB(*cfg)
	a.usersDB.SetMaxOpenConns(16)
	if a.users, err = sqlstore.NewPostgres(ctx, a.usersDB); err != nil {
		return fmt.Errorf("app: users: %w", err)
	}
	// The nodes share the answers of calls made with an Idempotency-Key, so that a retry that
	// lands on another node is replayed too.
	if a.idem, err = sqlstore.NewPostgresIdempotency(ctx, a.usersDB, sqlstore.IdempotencyOptions{Logger: a.log}); err != nil {
		return fmt.Errorf("app: %w", err)
	}
	return nil
}

// ParsePostgresURL checks a -postgres URL: postgres://user[:password]@host:port/db?params
// (postgresql:// too), with the parameters PostgreSQL's libpq knows (sslmode, ...). Without a
// connect_timeout, connections give up after 5 s, so that no call waits longer on a server
// that does not answer. Errors never show the password.
func ParsePostgresURL(url string) (*pgx.ConnConfig, error) {
	if !strings.HasPrefix(url, "postgres://") && !strings.HasPrefix(url, "postgresql://") {
		return nil, errors.New("app: -postgres takes a URL postgres://user[:password]@host:port/database?sslmode=disable (or require, verify-full)")
	}
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("app: -postgres: %w", err)
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 5 * time.Second
	}
	return cfg, nil
}

// listen starts receiving, with several nodes, the changes other nodes make that this one's
// caches must see: tokens ended, users changed, configuration set.
func (a *App) listen() {
	if a.cfg.Postgres == "" {
		return
	}
	reload := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := a.console.Settings().Reload(ctx); err != nil {
			a.log.Warn("app: reading the configuration another node changed", zap.Error(err))
		}
	}
	a.listener = &cluster.Listener{
		Handlers: map[string]func(string){
			sqlstore.Channel: func(payload string) {
				switch c := parseAuthChange(payload); {
				case c.user != "":
					a.auth.ForgetUser(c.user)
				case c.token:
					a.auth.Forget(c.hash)
				default:
					a.auth.ForgetAll() // not a payload of this version: be safe
				}
			},
			statedb.ConfigChannel: func(string) { reload() },
			state.ContextChannel:  func(string) { a.inlet.ReloadContext() },
		},
		Resync: func() {
			a.auth.ForgetAll()
			reload()
			a.inlet.ReloadContext()
		},
		Logger: a.log,
	}
	a.listener.Listen(a.cfg.Postgres)
}

// pingers returns what readiness checks: the stores a node cannot serve without.
func (a *App) pingers() map[string]func(context.Context) error {
	p := map[string]func(context.Context) error{
		"records": func(ctx context.Context) error {
			_, _, err := a.records.Newest(ctx) // an indexed read on both engines
			return err
		},
	}
	if a.usersDB != nil {
		p["users"] = a.usersDB.PingContext
	}
	if a.queue != nil {
		p["queue"] = func(context.Context) error { return a.queue.Ready() }
	}
	if pg, ok := a.state.(*statedb.Postgres); ok {
		p["state"] = pg.Ping
	}
	if a.listener != nil {
		p["notifications"] = func(context.Context) error {
			if !a.listener.Connected() {
				return fmt.Errorf("not listening")
			}
			return nil
		}
	}
	return p
}

// authChange is what a notification on sqlstore.Channel names: a user, or a token's hash.
type authChange struct {
	user  string
	token bool
	hash  auth.Hash
}

// parseAuthChange reads a payload "user:<name>" or "token:<hex SHA-256>"; anything else gives
// the zero authChange.
func parseAuthChange(payload string) authChange {
	kind, value, _ := strings.Cut(payload, ":")
	switch kind {
	case "user":
		return authChange{user: value}
	case "token":
		var c authChange
		if b, err := hex.DecodeString(value); err == nil && len(b) == len(c.hash) {
			c.token = true
			copy(c.hash[:], b)
		}
		return c
	}
	return authChange{}
}
