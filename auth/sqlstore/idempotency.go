package sqlstore

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/transport"
	"go.uber.org/zap"
)

// Idempotency is a transport.IdempotencyStore in a SQL database, for the nodes of a service
// that share one (fnapi.WithIdempotencyStore): a call made with an Idempotency-Key runs once
// across them, and a retry that lands on another node gets the first answer, or waits for it.
//
// One table, fnapi_idempotency, created if missing: by (caller, key), both kept as their
// SHA-256 only, the fingerprint of the call, when it was claimed, and once the call ended its
// answer (status, body, Retry-After). A repeat while the call runs on any node looks for its
// answer every IdempotencyOptions.Poll (100 ms) until its own deadline. A claim whose node
// died never ends: past ClaimTimeout (2 min, longer than the call deadline) a repeat takes it
// over and runs the call. Answers are kept transport.IdempotencyTTL (24 h), at most
// MaxKeysPerCaller (1,000) per caller (the oldest dropped first), each at most what the handler
// keeps (fnapi.WithMaxIdempotentAnswerBytes, 64 KiB). Expired rows are deleted by the claims,
// at most once a minute per node. A failed write in Finish is logged: the claim then ends at
// ClaimTimeout and a repeat runs again.
type Idempotency struct {
	db        *sql.DB
	d         dialect
	o         IdempotencyOptions
	claims    sync.Map // of [32]byte (the row's id) to []byte (this node's claim token)
	lastSweep atomic.Int64
}

var _ transport.IdempotencyStore = (*Idempotency)(nil)

// IdempotencyOptions bound an Idempotency. A zero field is its default.
type IdempotencyOptions struct {
	// MaxKeysPerCaller is the most answers kept for one caller; past it the oldest is dropped
	// (its repeat runs again). Default: 1000.
	MaxKeysPerCaller int
	// ClaimTimeout is how long a call may hold its key before a repeat takes it over, as after
	// its node died; keep it longer than the call deadline. Default: 2 min.
	ClaimTimeout time.Duration
	// Poll is how often a repeat waiting for a running call looks for its answer. Default:
	// 100 ms.
	Poll time.Duration
	// Logger receives the errors of Finish. Default: none.
	Logger *zap.Logger
	// Now is the clock. Default: time.Now.
	Now func() time.Time
}

const idempotencySchema = `CREATE TABLE IF NOT EXISTS fnapi_idempotency (
	id          %[1]s NOT NULL PRIMARY KEY,
	caller      %[1]s NOT NULL,
	fp          %[1]s NOT NULL,
	claim       %[1]s,
	created     BIGINT NOT NULL,
	done        BOOLEAN NOT NULL,
	status      INTEGER NOT NULL,
	body        %[1]s,
	retry_after TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS fnapi_idempotency_caller ON fnapi_idempotency (caller, created);
CREATE INDEX IF NOT EXISTS fnapi_idempotency_created ON fnapi_idempotency (created);`

// NewPostgresIdempotency returns the store in db, a PostgreSQL database opened with any
// database/sql driver, creating its table if missing. Close leaves db open.
func NewPostgresIdempotency(ctx context.Context, db *sql.DB, o IdempotencyOptions) (*Idempotency, error) {
	return newIdempotency(ctx, db, postgres, o)
}

// NewIdempotency returns the store in db, a SQLite database, creating its table if missing.
func NewIdempotency(ctx context.Context, db *sql.DB, o IdempotencyOptions) (*Idempotency, error) {
	return newIdempotency(ctx, db, sqlite, o)
}

func newIdempotency(ctx context.Context, db *sql.DB, d dialect, o IdempotencyOptions) (*Idempotency, error) {
	if o.MaxKeysPerCaller <= 0 {
		o.MaxKeysPerCaller = 1000
	}
	if o.ClaimTimeout <= 0 {
		o.ClaimTimeout = 2 * time.Minute
	}
	if o.Poll <= 0 {
		o.Poll = 100 * time.Millisecond
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &Idempotency{db: db, d: d, o: o}
	st := &Store{db: db, d: d}
	err := st.tx(ctx, func(tx *sql.Tx) error {
		if d.lock != "" { // nodes starting together create the table one after the other
			if _, err := tx.ExecContext(ctx, d.lock); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, fmt.Sprintf(idempotencySchema, d.blob))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("sqlstore: creating the idempotency table: %w", err)
	}
	return s, nil
}

// ids returns the row's id and the caller's, as stored.
func ids(scope, key string) (id, caller [32]byte) {
	caller = sha256.Sum256([]byte(scope))
	return sha256.Sum256([]byte(scope + "\x00" + key)), caller
}

// Begin implements transport.IdempotencyStore.
func (s *Idempotency) Begin(ctx context.Context, scope, key string, fp [32]byte) (*transport.IdempotentAnswer, error) {
	id, caller := ids(scope, key)
	var tick *time.Ticker
	for {
		now := s.o.Now()
		s.sweep(ctx, now)
		claim := make([]byte, 16)
		_, _ = rand.Read(claim)
		if _, err := s.db.ExecContext(ctx, s.d.q(`DELETE FROM fnapi_idempotency WHERE id = ? AND
			((done AND created <= ?) OR (NOT done AND created <= ?))`),
			id[:], now.Add(-transport.IdempotencyTTL).UnixNano(), now.Add(-s.o.ClaimTimeout).UnixNano()); err != nil {
			return nil, unavailable(err)
		}
		res, err := s.db.ExecContext(ctx, s.d.q(`INSERT INTO fnapi_idempotency
			(id, caller, fp, claim, created, done, status, retry_after) VALUES (?, ?, ?, ?, ?, FALSE, 0, '')
			ON CONFLICT (id) DO NOTHING`), id[:], caller[:], fp[:], claim, now.UnixNano())
		if err != nil {
			return nil, unavailable(err)
		}
		if n, _ := res.RowsAffected(); n == 1 {
			s.claims.Store(id, claim)
			if err := s.trim(ctx, caller); err != nil {
				s.o.Logger.Warn("sqlstore: dropping a caller's oldest idempotency keys", zap.Error(err))
			}
			return nil, nil
		}
		var (
			got  []byte
			done bool
			a    transport.IdempotentAnswer
		)
		err = s.db.QueryRowContext(ctx, s.d.q(`SELECT fp, done, status, body, retry_after FROM fnapi_idempotency WHERE id = ?`), id[:]).
			Scan(&got, &done, &a.Status, &a.Body, &a.RetryAfter)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			continue // the claim ended without an answer: claim the key again
		case err != nil:
			return nil, unavailable(err)
		case !bytes.Equal(got, fp[:]):
			return nil, apierr.New(apierr.IdempotencyKeyReused, "reason", "the key was used with other arguments or for another function")
		case done:
			return &a, nil
		}
		if tick == nil {
			tick = time.NewTicker(s.o.Poll)
			defer tick.Stop()
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Finish implements transport.IdempotencyStore.
func (s *Idempotency) Finish(scope, key string, a *transport.IdempotentAnswer) {
	id, _ := ids(scope, key)
	v, ok := s.claims.LoadAndDelete(id)
	if !ok {
		return
	}
	claim := v.([]byte)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var err error
	if a == nil {
		_, err = s.db.ExecContext(ctx, s.d.q(`DELETE FROM fnapi_idempotency WHERE id = ? AND claim = ? AND NOT done`), id[:], claim)
	} else {
		_, err = s.db.ExecContext(ctx, s.d.q(`UPDATE fnapi_idempotency SET done = TRUE, status = ?, body = ?, retry_after = ?
			WHERE id = ? AND claim = ? AND NOT done`), a.Status, a.Body, a.RetryAfter, id[:], claim)
	}
	if err != nil {
		s.o.Logger.Error("sqlstore: keeping the answer of an idempotent call", zap.Error(err))
	}
}

// trim drops the caller's oldest answers past MaxKeysPerCaller.
func (s *Idempotency) trim(ctx context.Context, caller [32]byte) error {
	var n int
	if err := s.db.QueryRowContext(ctx, s.d.q(`SELECT count(*) FROM fnapi_idempotency WHERE caller = ?`), caller[:]).Scan(&n); err != nil {
		return err
	}
	if n <= s.o.MaxKeysPerCaller {
		return nil
	}
	_, err := s.db.ExecContext(ctx, s.d.q(`DELETE FROM fnapi_idempotency WHERE id IN
		(SELECT id FROM fnapi_idempotency WHERE caller = ? AND done ORDER BY created LIMIT ?)`), caller[:], n-s.o.MaxKeysPerCaller)
	return err
}

// sweep deletes the expired answers of every caller, at most once a minute.
func (s *Idempotency) sweep(ctx context.Context, now time.Time) {
	last := s.lastSweep.Load()
	if now.UnixNano()-last < int64(time.Minute) || !s.lastSweep.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	if _, err := s.db.ExecContext(ctx, s.d.q(`DELETE FROM fnapi_idempotency WHERE done AND created <= ?`),
		now.Add(-transport.IdempotencyTTL).UnixNano()); err != nil {
		s.o.Logger.Warn("sqlstore: deleting expired idempotency keys", zap.Error(err))
	}
}

// Len returns how many keys the store holds, answered or being answered.
func (s *Idempotency) Len(ctx context.Context) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM fnapi_idempotency`).Scan(&n)
	return n, err
}

// unavailable is the error of a call whose key the database could not claim.
func unavailable(err error) error {
	return fmt.Errorf("sqlstore: idempotency: %w: %w", apierr.Unavailable, err)
}
