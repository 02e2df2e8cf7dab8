package traffic

import (
	"context"
	"sync"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/examples/dataservice/manage"
	"github.com/fnapi/fnapi/registry"
)

// DefaultMaxFollows is how many followed queries one caller may hold open at once by default:
// enough for a few browser tabs on dashboards of twenty widgets, while each one re-runs its
// query every interval without counting against the call rate limit.
const DefaultMaxFollows = 64

// follows counts the followed queries each caller holds open. The zero value is ready.
type follows struct {
	mu sync.Mutex
	n  map[string]int
}

// acquire counts one more followed query for the caller of ctx, or answers LIMIT-REACHED
// (name "follow streams", limit) when the caller holds max already. release undoes it.
func (f *follows) acquire(ctx context.Context, max int) (release func(), err error) {
	who := caller(ctx)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n[who] >= max {
		return nil, apierr.New(manage.LimitReached, "name", "follow streams", "limit", max,
			"reason", "end a followed query (cancel it, or close its dashboard) before opening another")
	}
	if f.n == nil {
		f.n = map[string]int{}
	}
	f.n[who]++
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.n[who]--; f.n[who] <= 0 {
			delete(f.n, who)
		}
	}, nil
}

// caller names whom a followed query counts against: its user, else its client address.
func caller(ctx context.Context) string {
	if id := auth.FromContext(ctx); id != nil {
		return "user " + id.User
	}
	if c := registry.CallFrom(ctx); c != nil {
		return c.Client()
	}
	return ""
}
