package netctx

import (
	"cmp"
	"context"
	"net/netip"
	"sync"
	"time"
)

// PollStatus is what the last poll of one exporter gave.
type PollStatus struct {
	Address netip.Addr
	// Last is when it was last polled, OK when it last answered.
	Last, OK time.Time
	// Error says why the last poll failed; empty when it answered. The names last found stay
	// in use.
	Error string
	// Interfaces is how many interfaces the last answer named.
	Interfaces int
}

// Poller polls the exporters' names into a Names. Each exporter is polled on its own
// schedule, at most MaxConcurrentPolls at once, so that one that answers slowly, never, or
// without end delays none of the others. It is safe for concurrent use.
type Poller struct {
	names *Names
	slots chan struct{} // a place for each poll under way

	mu       sync.Mutex
	interval time.Duration // SetTargets'; 0: Run's
	every    time.Duration // Run's
	targets  []Target
	status   map[netip.Addr]PollStatus
	run      context.Context // Run's while it runs, else nil
	polls    map[netip.Addr]*devicePoll
}

// devicePoll is the polling of one exporter, until cancelled.
type devicePoll struct {
	target Target
	every  time.Duration
	cancel context.CancelFunc
	done   chan struct{}
}

// NewPoller returns a Poller that records what it finds in names.
func NewPoller(names *Names) *Poller {
	return &Poller{names: names, slots: make(chan struct{}, MaxConcurrentPolls), status: map[netip.Addr]PollStatus{},
		polls: map[netip.Addr]*devicePoll{}}
}

// SetTargets replaces the exporters polled and how often (0 keeps Run's interval). A new or
// changed exporter is polled at once; one no longer listed is no longer polled once
// SetTargets returns (a poll under way is stopped), and its status and the names polled of
// it are dropped (its static names, if any, apply).
func (p *Poller) SetTargets(ts []Target, interval time.Duration) {
	p.mu.Lock()
	p.targets, p.interval = append([]Target(nil), ts...), interval
	stopped := p.apply()
	p.mu.Unlock()
	for _, d := range stopped {
		<-d.done
	}
}

// apply starts polling each target not polled, and stops polling the exporters no longer
// targets, or whose target or interval changed; it returns the polls stopped. The caller
// holds p.mu.
func (p *Poller) apply() (stopped []*devicePoll) {
	if p.run == nil {
		return nil
	}
	every := cmp.Or(p.interval, p.every)
	want := make(map[netip.Addr]Target, len(p.targets))
	for _, t := range p.targets {
		want[t.Address.Unmap()] = t
	}
	for a, d := range p.polls {
		if t, ok := want[a]; !ok || t != d.target || every != d.every {
			d.cancel()
			delete(p.polls, a)
			stopped = append(stopped, d)
			if !ok {
				delete(p.status, a)
				p.names.forget(a)
			}
		}
	}
	for a, t := range want {
		if _, ok := p.polls[a]; ok {
			continue
		}
		ctx, cancel := context.WithCancel(p.run)
		d := &devicePoll{target: t, every: every, cancel: cancel, done: make(chan struct{})}
		p.polls[a] = d
		go p.poll(ctx, d)
	}
	return stopped
}

// Status returns the last poll of each exporter polled.
func (p *Poller) Status() []PollStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]PollStatus, 0, len(p.targets))
	for _, t := range p.targets {
		s, ok := p.status[t.Address.Unmap()]
		if !ok {
			s.Address = t.Address.Unmap()
		}
		out = append(out, s)
	}
	return out
}

// Run polls every target each interval (DefaultSNMPInterval when 0; SNMPRetry after a poll
// that failed), and at once when the targets change, until ctx ends. A failed poll leaves the
// names last found in place and says why in Status.
func (p *Poller) Run(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = DefaultSNMPInterval
	}
	p.mu.Lock()
	p.run, p.every = ctx, interval
	p.apply()
	p.mu.Unlock()
	<-ctx.Done()
	p.mu.Lock()
	polls := p.polls
	p.run, p.polls = nil, map[netip.Addr]*devicePoll{}
	p.mu.Unlock()
	for _, d := range polls {
		<-d.done
	}
}

// poll polls d's exporter every d.every (SNMPRetry after a failure) until ctx ends.
func (p *Poller) poll(ctx context.Context, d *devicePoll) {
	defer close(d.done)
	for {
		select {
		case p.slots <- struct{}{}:
		case <-ctx.Done():
			return
		}
		dev, err := Poll(ctx, d.target)
		<-p.slots
		if !p.record(ctx, d.target, dev, err) {
			return
		}
		wait := d.every
		if err != nil {
			wait = min(wait, SNMPRetry)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// record keeps what a poll of t gave, unless ctx ended (the exporter is no longer polled),
// and reports whether it did.
func (p *Poller) record(ctx context.Context, t Target, d Device, err error) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ctx.Err() != nil {
		return false
	}
	s := p.status[t.Address.Unmap()]
	s.Address, s.Last = t.Address.Unmap(), time.Now().UTC()
	if err != nil {
		s.Error = err.Error()
	} else {
		s.Error, s.OK, s.Interfaces = "", s.Last, len(d.Interfaces)
		p.names.SetPolled(d)
	}
	p.status[s.Address] = s
	return true
}
