package traffic

import (
	"context"
	"sync"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/pvql"
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
		return nil, apierr.New(api.LimitReached, "name", "follow streams", "limit", max,
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

// Live answers one followed expression incrementally; *pvql.Live is one.
type Live interface {
	// Answer answers the expression at now (see pvql.Live.Answer).
	Answer(ctx context.Context, now time.Time, defaultPeriod time.Duration) ([]pvql.Result, error)
	// Close releases what it keeps between answers.
	Close()
}

// follower starts the Follower of a followed expression for the call ctx: its Live when the
// service has one, else answers of the whole period afresh.
func (s *Service) follower(ctx context.Context, expr string) Follower {
	if s.Live != nil {
		if l, err := s.Live(ctx, expr); err == nil {
			return liveFollower{l, s}
		}
	}
	return freshFollower{expr, s}
}

// liveFollower answers from a Live at the service's time and default period.
type liveFollower struct {
	l Live
	s *Service
}

func (f liveFollower) Answer(ctx context.Context) ([]pvql.Result, error) {
	return f.l.Answer(ctx, f.s.now(), f.s.DefaultPeriod())
}

func (f liveFollower) Close() { f.l.Close() }

// freshFollower answers the whole period afresh each time.
type freshFollower struct {
	expr string
	s    *Service
}

func (f freshFollower) Answer(ctx context.Context) ([]pvql.Result, error) {
	return f.s.Engine.Query(ctx, f.expr, f.s.now(), f.s.DefaultPeriod())
}

func (freshFollower) Close() {}
