package transport

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/internal/bufpool"
	"github.com/fnapi/fnapi/internal/calllink"
	"github.com/fnapi/fnapi/registry"
	"go.uber.org/zap"
)

// Idempotent writes. An HTTP call (GET or POST, not a stream) of a function that changes things
// (neither registry.ReadOnly nor registry.NoStore) with the header Idempotency-Key, an opaque
// value of 1 to 255 bytes compared as it is, runs once per caller and key for IdempotencyTTL
// (24 h): a repeat with the same arguments gets the first answer again (status, body and
// Retry-After; compressed as the repeat accepts), marked Idempotent-Replayed: true; a repeat
// with other arguments, or calling another function or version, gets IDEMPOTENCY-KEY-REUSED
// (422); a repeat while the first call runs waits for it, within its own call deadline
// (Config.CallTimeout), and gives up when its caller goes away. A malformed key (empty, longer,
// given twice) is INVALID-ARGUMENT, on any call.
//
// The caller is who the authentication interceptor says, whatever token a retry carries: the
// IdempotencyScope of an Identity that has one (auth's: the user, when the user was created,
// and its role, so that a user deleted and created again under the same name, or whose role
// changed, starts afresh), else the String of an Identity that is a fmt.Stringer, or else the
// call's tokens. A call without identity (a public function: auth runs them without one) is not
// deduplicated, nor is a NoStore function's (its answer holds a secret no store may keep):
// the key is ignored there.
//
// What is kept: the answer of every call whose function ran, results and errors alike
// (INTERNAL-ERROR included: the function may have changed things before it failed), except an
// error answered because the call's context ended (TIMEOUT, CANCELLED: the function was told to
// stop), after which the key is free again and a repeat runs. Nothing is kept of a call refused
// before its function ran (authentication, rate limits, binding its arguments): a repeat runs.
// An answer over Config.MaxIdempotentAnswerBytes (64 KiB) is not kept: its caller gets it, and a
// repeat gets CONFLICT (409) saying so, never a second run. The memory a store takes is
// bounded (IdempotencyLimits); Set-Cookie is never replayed.
//
// A store keeps a fingerprint of each call's arguments, to tell a repeat from a reuse of its
// key: an HMAC-SHA256 keyed by the Idempotency-Key, so that whoever reads a store (a shared
// table, a backup) cannot test guesses of an argument (a new password, say) against it
// without the key, which stores keep as a digest only. Make keys random, as the IETF draft
// advises (a UUID): a guessable key lets such a reader test guesses again.

// maxIdempotencyKey is the longest Idempotency-Key, in bytes.
const maxIdempotencyKey = 255

// idemCall is what ServeHTTP and the interceptor idempotent share of a call made with an
// Idempotency-Key (calllink.Facts.Idempotency).
type idemCall struct {
	key    string
	scope  string            // the caller, once the key is claimed
	replay *IdempotentAnswer // the answer to replay, when the key held one
	done   bool              // Finish was called
}

// idempotencyKey returns the Idempotency-Key of r for a call of f: nil when there is none or
// f does not take one, INVALID-ARGUMENT when it is malformed.
func idempotencyKey(r *http.Request, f *registry.Func) (*idemCall, error) {
	vs := r.Header["Idempotency-Key"]
	switch {
	case vs == nil:
		return nil, nil
	case len(vs) > 1:
		return nil, apierr.New(apierr.InvalidArgument, "name", "Idempotency-Key", "reason", "given more than once")
	case vs[0] == "" || len(vs[0]) > maxIdempotencyKey:
		return nil, apierr.New(apierr.InvalidArgument, "name", "Idempotency-Key",
			"reason", "must hold 1 to "+strconv.Itoa(maxIdempotencyKey)+" bytes")
	case f.ReadOnly || f.NoStore:
		return nil, nil
	}
	return &idemCall{key: vs[0]}, nil
}

// idempotent is the innermost interceptor: for a call made with an Idempotency-Key, it claims
// the key of the caller, or has ServeHTTP replay the answer the key holds.
func (h *Handler) idempotent(next registry.Handler) registry.Handler {
	return func(ctx context.Context, c *registry.Call) (any, error) {
		ic, _ := calllink.Of(c).Idempotency.(*idemCall)
		if ic == nil {
			return next(ctx, c)
		}
		scope := callerScope(c)
		if scope == "" {
			return next(ctx, c)
		}
		a, err := h.cfg.Idempotency.Begin(ctx, scope, ic.key, fingerprint(c, ic.key))
		switch {
		case err != nil:
			return nil, err
		case a != nil:
			ic.replay = a
			c.AddLogFields(zap.Bool("idempotent_replayed", true))
			return nil, nil
		}
		ic.scope = scope
		return next(ctx, c)
	}
}

// callerScope names the caller of c for its keys (see the package doc); empty for an
// anonymous call.
func callerScope(c *registry.Call) string {
	switch id := c.Identity.(type) {
	case nil:
		return ""
	case interface{ IdempotencyScope() string }:
		if s := id.IdempotencyScope(); s != "" {
			return "scope:" + s
		}
	case fmt.Stringer:
		if name := id.String(); name != "" {
			return "user:" + name
		}
	}
	sum := sha256.Sum256([]byte(c.Credentials.Session + "\x00" + c.Credentials.Key))
	return "token:" + base64.RawURLEncoding.EncodeToString(sum[:])
}

// fingerprint is what a repeat must repeat, the function, the version and the arguments (each
// value as the JSON text it came as), as their HMAC-SHA256 keyed by the Idempotency-Key.
func fingerprint(c *registry.Call, key string) [32]byte {
	d := hmac.New(sha256.New, []byte(key))
	field := func(s string) {
		var n [8]byte
		d.Write(strconv.AppendInt(n[:0], int64(len(s)), 10))
		d.Write([]byte{':'})
		d.Write([]byte(s))
	}
	field(c.Func.Name)
	field(c.Version.String())
	names := make([]string, 0, len(c.Args))
	for name := range c.Args {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		field(name)
		field(string(c.Args[name]))
	}
	var sum [32]byte
	d.Sum(sum[:0])
	return sum
}

// finishIdempotent answers a call made with an Idempotency-Key once it returned: it replays
// the answer the key held, or keeps the call's answer for its key as the package doc says and
// answers it; it reports false when the key played no part (an anonymous call, or one refused
// before the interceptor), and ServeHTTP answers as for any call.
func (h *Handler) finishIdempotent(ctx context.Context, w http.ResponseWriter, r *http.Request, c *registry.Call, ic *idemCall, res any, err error) bool {
	if ic.replay != nil {
		w.Header().Set("Idempotent-Replayed", "true")
		writeAnswer(w, ic.replay, h.compressMin(w, r, c.Func))
		return true
	}
	if ic.scope == "" {
		return false
	}
	var a IdempotentAnswer
	if err != nil {
		a = errorAnswer(err)
	} else if a, err = resultAnswer(res); err != nil {
		h.cfg.Logger.Error("result does not encode as JSON", zap.String("function", c.Func.Name), zap.Error(err))
	}
	kept := &a
	switch {
	case !calllink.Of(c).Ran, err != nil && ctx.Err() != nil:
		kept = nil
	case len(a.Body) > h.cfg.MaxIdempotentAnswerBytes:
		tooLarge := errorAnswer(apierr.New(apierr.Conflict, "limit", h.cfg.MaxIdempotentAnswerBytes,
			"reason", fmt.Sprintf("the call with this Idempotency-Key ran and answered %d bytes with status %d: too large to keep, so it is not replayed", len(a.Body), a.Status)))
		kept = &tooLarge
	}
	ic.done = true
	h.cfg.Idempotency.Finish(ic.scope, ic.key, kept)
	writeAnswer(w, &a, h.compressMin(w, r, c.Func))
	return true
}

// abandon ends a claim that finishIdempotent did not (a panic), keeping nothing.
func (h *Handler) abandon(ic *idemCall) {
	if ic.scope != "" && !ic.done {
		h.cfg.Idempotency.Finish(ic.scope, ic.key, nil)
	}
}

// resultAnswer returns the answer of the result v; INTERNAL-ERROR, and the encoding error,
// when v does not encode as JSON.
func resultAnswer(v any) (IdempotentAnswer, error) {
	b := bufpool.Get()
	defer bufpool.Put(b)
	if err := appendResult(b, v); err != nil {
		return errorAnswer(apierr.New(apierr.Internal)), err
	}
	return IdempotentAnswer{Status: http.StatusOK, Body: slices.Clone(b.Bytes())}, nil
}
