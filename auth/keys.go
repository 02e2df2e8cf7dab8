package auth

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fnapi/fnapi/auth/authapi"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/label"
	"go.uber.org/zap"
)

// keyOwner returns whose keys a call names: the caller's, or another user's for an
// administrator.
func keyOwner(ctx context.Context, id *Identity, user string) (string, error) {
	if user == "" || user == id.User {
		return id.User, nil
	}
	return user, requireAdmin(ctx, id)
}

// createKey makes an API key for the caller.
func (a *Authenticator) createKey(ctx context.Context, in authapi.KeyArgs) (string, error) {
	id, err := identity(ctx)
	if err != nil {
		return "", err
	}
	if reason := label.Check(in.Name); reason != "" {
		return "", apierr.New(apierr.InvalidArgument, "name", "name", "reason", reason)
	}
	ks, err := a.store.Keys(ctx, id.User)
	if err != nil {
		return "", apierr.New(apierr.Internal).Wrap(err)
	}
	if len(ks) >= a.maxKeys {
		return "", apierr.New(apierr.Conflict, "name", in.Name, "limit", a.maxKeys,
			"reason", fmt.Sprintf("you hold %d API keys, the most allowed: revoke one first", len(ks)))
	}
	tok, h, err := newToken(KeyPrefix)
	if err != nil {
		return "", err
	}
	err = a.store.CreateKey(ctx, Key{Hash: h, User: id.User, Name: in.Name, Created: a.now().UTC()})
	switch {
	case errors.Is(err, ErrExists):
		return "", apierr.New(apierr.Conflict, "name", in.Name)
	case errors.Is(err, ErrNotFound):
		return "", needed(callOf(ctx))
	case err != nil:
		return "", apierr.New(apierr.Internal).Wrap(err)
	}
	a.log.Info("auth: API key created", zap.String("user", id.User), zap.String("name", in.Name))
	return tok, nil
}

// listKeys lists the caller's keys (or another user's), with last uses not yet flushed to the store.
func (a *Authenticator) listKeys(ctx context.Context, in authapi.ListKeysArgs) ([]authapi.KeyInfo, error) {
	id, err := identity(ctx)
	if err != nil {
		return nil, err
	}
	owner, err := keyOwner(ctx, id, in.User)
	if err != nil {
		return nil, err
	}
	ks, err := a.store.Keys(ctx, owner)
	if err != nil {
		return nil, apierr.New(apierr.Internal).Wrap(err)
	}
	out := make([]authapi.KeyInfo, 0, len(ks))
	for _, k := range ks {
		used := k.LastUsed
		if e := a.cache.get(k.Hash); e != nil && e.used.Load() > used.UnixNano() {
			used = time.Unix(0, e.used.Load())
		}
		ki := authapi.KeyInfo{Name: k.Name, Created: outTime(k.Created)}
		if !used.IsZero() {
			t := outTime(used)
			ki.LastUsed = &t
		}
		out = append(out, ki)
	}
	return out, nil
}

// revokeKey revokes one of the caller's keys (or another user's).
func (a *Authenticator) revokeKey(ctx context.Context, in authapi.RevokeArgs) (bool, error) {
	id, err := identity(ctx)
	if err != nil {
		return false, err
	}
	owner, err := keyOwner(ctx, id, in.User)
	if err != nil {
		return false, err
	}
	h, err := a.store.DeleteKey(ctx, owner, in.Name)
	switch {
	case errors.Is(err, ErrNotFound):
		return false, apierr.New(apierr.NotFound, "name", in.Name)
	case err != nil:
		return false, apierr.New(apierr.Internal).Wrap(err)
	}
	a.cache.remove(h)
	a.log.Info("auth: API key revoked", zap.String("user", owner), zap.String("name", in.Name), zap.String("by", id.User))
	return true, nil
}

// outTime is how times are answered: UTC, to the second.
func outTime(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }
