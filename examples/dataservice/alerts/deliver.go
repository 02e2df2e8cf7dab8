package alerts

import (
	"cmp"
	"context"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/state"
	"go.uber.org/zap"
)

// Bounds of delivery (docs/security.md, "Limits"): a slow or silent receiver costs its owner's
// notifications and those to it, never the others'.
const (
	// claimHold is how long a claimed delivery stays claimed: longer than one attempt. One
	// still waiting in its queue past it is claimed again and left where it waits.
	claimHold = 2 * attemptTimeout
	// claimBatch is the most deliveries claimed at once; the sender claims again at once
	// after a full batch, up to claimRounds times before it waits for the next second.
	claimBatch, claimRounds = 100, 50
	// connectTimeout bounds the connection of one attempt (TCP, and TLS); attemptTimeout
	// the whole attempt, answer included. E-mail has mailTimeout instead, for the whole
	// SMTP dialogue.
	connectTimeout, attemptTimeout, mailTimeout = 5 * time.Second, 10 * time.Second, 30 * time.Second
	// perOwner, perDestination and inFlight bound the attempts under way at once: for the
	// rules of one owner, to one destination (a webhook's host and port; the SMTP server for
	// e-mail), and in all.
	perOwner, perDestination, inFlight = 4, 2, 32
	// queuedPerOwner and queuedPerDestination bound the deliveries claimed and waiting for
	// their attempt. A delivery claimed past either is not attempted: it counts as a failed
	// attempt ("not attempted"), due again after the back-off, and Service.Deferred counts it.
	queuedPerOwner, queuedPerDestination = 200, 100
)

// sender runs the attempts of claimed deliveries: each destination has a queue, oldest
// first, and the destinations take turns; an attempt starts when its owner, its destination
// and the sender are under their bounds.
type sender struct {
	s       *Service
	mu      sync.Mutex
	queues  map[string][]*attempt // by destination
	dests   []string              // the destinations with a queue, in turn
	turn    int
	claimed map[int64]bool // queued or under way
	queued  map[string]int // by owner
	owners  map[string]int // attempts under way by owner
	at      map[string]int // attempts under way by destination
	busy    int            // attempts under way
	skipped atomic.Int64   // deliveries not attempted, their queue full
}

// attempt is one delivery to attempt.
type attempt struct {
	ctx         context.Context
	d           state.AlertDelivery
	owner, dest string
	secret      string
	done        *sync.WaitGroup // Deliver's, which waits for its attempts; nil for the loop
}

func newSender(s *Service) *sender {
	return &sender{s: s, queues: map[string][]*attempt{}, claimed: map[int64]bool{}, queued: map[string]int{},
		owners: map[string]int{}, at: map[string]int{}}
}

// Deferred returns how many claimed deliveries were not attempted because their owner's or
// their destination's queue was full.
func (s *Service) Deferred() int64 { return s.sender.skipped.Load() }

// deliverLoop sends the outbox's due notifications until ctx is done: at once after an
// evaluation, and every second for retries. Claiming never waits for attempts.
func (s *Service) deliverLoop(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		for range claimRounds {
			n, err := s.dispatch(ctx, time.Now(), nil)
			if err != nil && ctx.Err() == nil {
				s.log.Error("alerts: delivering notifications", zap.Error(err))
			}
			if n < claimBatch {
				break
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.wake:
		}
	}
}

// Deliver sends the notifications of the outbox due at now (a batch of them), and returns
// once their attempts are done: each once until a channel acknowledges it: a failure is
// retried with back-off (Options.Backoff doubling each time, at most ten minutes apart)
// until Options.Attempts, then given up; the channel's state (list-alert-rules) shows the
// failure.
func (s *Service) Deliver(ctx context.Context, now time.Time) error {
	var wg sync.WaitGroup
	_, err := s.dispatch(ctx, now, &wg)
	wg.Wait()
	return err
}

// dispatch claims a batch of the deliveries due at now and queues them (done waits for
// them when not nil); those over their queue's bound are put back as failed attempts.
func (s *Service) dispatch(ctx context.Context, now time.Time, done *sync.WaitGroup) (int, error) {
	ds, err := s.store.Claim(ctx, now, claimHold, claimBatch)
	if err != nil || len(ds) == 0 {
		return 0, err
	}
	rules := map[string]state.AlertRule{}
	var full []*attempt
	for _, d := range ds {
		r, ok := rules[d.Rule]
		if !ok {
			r, _ = s.store.Rule(ctx, d.Rule) // deleted: sent without a secret, as before
			rules[d.Rule] = r
		}
		a := &attempt{ctx: ctx, d: d, owner: r.Owner, dest: destination(d.Target), done: done}
		for _, c := range channels(r) {
			if c.Webhook == d.Target {
				a.secret = c.Secret
			}
		}
		if !s.sender.add(a) {
			full = append(full, a)
		}
	}
	s.sender.pump()
	if len(full) > 0 {
		s.sender.skipped.Add(int64(len(full)))
		s.log.Warn("alerts: notifications not attempted: too many wait for their owner's rules or their destination",
			zap.Int("count", len(full)), zap.String("destination", full[0].dest))
	}
	for _, a := range full {
		// Not an attempt: a flood of one owner's notifications never uses up their attempts.
		why := "not attempted: too many notifications wait for " + a.dest + " or for the rules of its owner"
		if err := s.store.Postpone(context.WithoutCancel(ctx), a.d.ID, why, now.Add(s.backoff(a.d))); err != nil {
			s.log.Error("alerts: recording a delivery", zap.Error(err))
		}
	}
	return len(ds), nil
}

// destination is what a delivery's target counts against: a webhook's host and port, or
// the SMTP server.
func destination(target string) string {
	if strings.HasPrefix(target, mailto) {
		return "smtp"
	}
	u, err := url.Parse(target)
	if err != nil {
		return target
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), cmp.Or(u.Port(), "443"))
}

// add queues a; false when its owner's or its destination's queue is full. A delivery
// already queued or under way (claimed again) is left where it is.
func (q *sender) add(a *attempt) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.claimed[a.d.ID] {
		return true
	}
	if q.queued[a.owner] >= queuedPerOwner || len(q.queues[a.dest]) >= queuedPerDestination {
		return false
	}
	q.claimed[a.d.ID] = true
	q.queued[a.owner]++
	if len(q.queues[a.dest]) == 0 {
		q.dests = append(q.dests, a.dest)
	}
	q.queues[a.dest] = append(q.queues[a.dest], a)
	if a.done != nil {
		a.done.Add(1)
	}
	return true
}

// pump starts the attempts that the bounds let start, one destination after the other.
func (q *sender) pump() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for started := true; started && q.busy < inFlight; {
		started = false
		for i := 0; i < len(q.dests) && q.busy < inFlight; i++ {
			dest := q.dests[(q.turn+i)%len(q.dests)]
			if q.at[dest] >= perDestination {
				continue
			}
			wait := q.queues[dest]
			j := slices.IndexFunc(wait, func(a *attempt) bool { return q.owners[a.owner] < perOwner })
			if j < 0 {
				continue
			}
			a := wait[j]
			q.queues[dest] = slices.Delete(wait, j, j+1)
			q.queued[a.owner]--
			q.owners[a.owner]++
			q.at[dest]++
			q.busy++
			started = true
			go q.run(a)
		}
	}
	q.dests = slices.DeleteFunc(q.dests, func(d string) bool { return len(q.queues[d]) == 0 })
	for d, w := range q.queues {
		if len(w) == 0 {
			delete(q.queues, d)
		}
	}
	for o, n := range q.queued {
		if n == 0 {
			delete(q.queued, o)
		}
	}
	q.turn++
}

// run makes a's attempt, then lets the next start.
func (q *sender) run(a *attempt) {
	if a.ctx.Err() == nil { // else dropped: claimed until claimHold, the next holder retries
		q.s.deliver(a.ctx, a.d, a.secret)
	}
	q.mu.Lock()
	delete(q.claimed, a.d.ID)
	q.busy--
	if q.owners[a.owner]--; q.owners[a.owner] == 0 {
		delete(q.owners, a.owner)
	}
	if q.at[a.dest]--; q.at[a.dest] == 0 {
		delete(q.at, a.dest)
	}
	q.mu.Unlock()
	q.pump()
	if a.done != nil {
		a.done.Done()
	}
}

// deliver makes one attempt of d and records it.
func (s *Service) deliver(ctx context.Context, d state.AlertDelivery, secret string) {
	var err error
	if addr, ok := strings.CutPrefix(d.Target, mailto); ok {
		err = s.smtp.send(ctx, addr, d.Body)
	} else {
		actx, cancel := context.WithTimeout(ctx, attemptTimeout)
		err = postWebhook(actx, s.client, d.Target, secret, d.ID, d.Body)
		cancel()
	}
	if ctx.Err() != nil {
		return // claimed until claimHold: the next holder retries
	}
	text := ""
	if err != nil {
		text = err.Error()
	}
	s.finish(ctx, d, time.Now(), text, true)
}

// finish records an attempt of d at now: acknowledged when failure is empty, else failed
// (logged when log is set), and given up after Options.Attempts.
func (s *Service) finish(ctx context.Context, d state.AlertDelivery, now time.Time, failure string, log bool) {
	done := failure == ""
	if !done {
		done = d.Attempts+1 >= s.opts.Attempts
	}
	if failure != "" && log {
		s.log.Warn("alerts: notification failed", zap.String("rule", d.Rule), zap.Int64("event", d.Event),
			zap.Int("attempt", d.Attempts+1), zap.Bool("given up", done), zap.String("error", failure))
	}
	if err := s.store.Finish(context.WithoutCancel(ctx), d.ID, done, failure, now.Add(s.backoff(d))); err != nil {
		s.log.Error("alerts: recording a delivery", zap.Error(err))
	}
}

// backoff is how long d waits after its next failed attempt: Options.Backoff doubling with
// each attempt, at most ten minutes.
func (s *Service) backoff(d state.AlertDelivery) time.Duration {
	return min(s.opts.Backoff<<min(d.Attempts, 20), 10*time.Minute)
}
