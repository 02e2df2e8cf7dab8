package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/url"
	"time"

	"github.com/fnapi/fnapi/apierr"
)

// FollowWS runs the streaming call fn over a WebSocket to wsURL and keeps it going across
// lost connections: when the connection ends, or the server answers that it is shutting down
// (CANCELLED with a reason) or that a store is unreachable (UNAVAILABLE), it dials again and
// starts the call again, waiting between attempts from 100 ms up to 2 s. Behind a load
// balancer the new connection reaches a node that still serves, so the stream goes on.
//
// It is meant for calls whose chunks each carry a whole answer, such as a query with follow:
// true, whose every chunk replaces the previous ones: a restarted call sends a fresh answer,
// so the caller loses nothing. Calls whose chunks add to each other would see chunks again.
//
// The iteration ends when ctx is done (with no error), when the call ends, or with the first
// other error the server answers (an *apierr.Error, such as an argument or an authentication
// error, which trying again would not change); stopping it cancels the call.
func FollowWS(ctx context.Context, wsURL, fn string, args any, opts ...Option) iter.Seq2[json.RawMessage, error] {
	return func(yield func(json.RawMessage, error) bool) {
		if u, err := url.Parse(wsURL); err != nil || u.Host == "" {
			yield(nil, fmt.Errorf("client: WebSocket URL %q: want wss://host/path", wsURL))
			return
		}
		wait := 100 * time.Millisecond
		for ctx.Err() == nil {
			c, err := DialWS(ctx, wsURL, opts...)
			if err == nil {
				var stop bool
				stop, err = followOnce(ctx, c, fn, args, yield, &wait)
				c.Close()
				if stop {
					return
				}
			}
			if !retryable(err) {
				if ctx.Err() == nil {
					yield(nil, err)
				}
				return
			}
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			wait = min(2*wait, 2*time.Second)
		}
	}
}

// followOnce streams on one connection. It returns stop when the iteration is over (the call
// ended or the caller stopped), and otherwise the error that ended the connection's stream.
func followOnce(ctx context.Context, c *WSConn, fn string, args any, yield func(json.RawMessage, error) bool, wait *time.Duration) (stop bool, err error) {
	for chunk, err := range c.Stream(ctx, fn, args) {
		if err != nil {
			return false, err
		}
		*wait = 100 * time.Millisecond // this connection worked: retry quickly next time
		if !yield(chunk, nil) {
			return true, nil
		}
	}
	return true, nil
}

// retryable reports whether a stream that failed with err may succeed when started again.
func retryable(err error) bool {
	var e *apierr.Error
	if !errors.As(err, &e) {
		return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
	}
	_, shutdown := e.LookupAttr("reason")
	return errors.Is(e, apierr.Unavailable) || (errors.Is(e, apierr.Cancelled) && shutdown)
}
