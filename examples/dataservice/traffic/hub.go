package traffic

import (
	"context"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/fnapi/fnapi/examples/dataservice/pvql"
)

// hub shares the answers of followed queries: the followers of one expression (compared
// with its whitespace normalised) at one interval share one computation, which answers once
// per interval however many follow it and stops when the last one leaves. The answer depends
// only on the expression, the time and the service's default period, never on the caller (the
// query language has no per-user data, and each caller's right to call query is checked
// before it joins), so sharing it shows no caller anything it could not ask for itself. The
// zero value is ready.
type hub struct {
	mu   sync.Mutex
	runs map[followKey]*followRun
}

// followKey identifies the followers that share one computation.
type followKey struct {
	expr     string
	interval time.Duration
}

// followRun is one shared computation and its latest answer.
type followRun struct {
	followers int
	stop      context.CancelFunc
	// The fields below change under the hub's lock; next is closed, and replaced, when a new
	// answer (or the error that ends the run) is published.
	seq    uint64
	result []pvql.Result
	err    error
	next   chan struct{}
}

// Follower answers one followed expression again and again, each time at the current time;
// *pvql.Live (with the current time and default period) is one. One goroutine calls it.
type Follower interface {
	// Answer answers the expression now.
	Answer(ctx context.Context) ([]pvql.Result, error)
	// Close releases what the Follower keeps between answers.
	Close()
}

// startFollower returns the Follower of a followed expression.
type startFollower func(expr string) Follower

// follow calls send with a new answer of expr every interval, computed once for all the
// followers of expr at interval, until ctx ends (it returns ctx's error), send fails (its
// error) or an answer does (that error).
func (h *hub) follow(ctx context.Context, expr string, interval time.Duration, start startFollower,
	send func([]pvql.Result) error) error {
	k := followKey{normalise(expr), interval}
	r := h.join(k, expr, start)
	defer h.leave(k, r)
	h.mu.Lock()
	seen := r.seq
	h.mu.Unlock()
	for {
		h.mu.Lock()
		next := r.next
		h.mu.Unlock()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-next:
		}
		h.mu.Lock()
		seq, res, err := r.seq, r.result, r.err
		h.mu.Unlock()
		if err != nil {
			return err
		}
		if seq == seen {
			continue
		}
		seen = seq
		if err := send(res); err != nil {
			return err
		}
	}
}

// latest returns the last answer of the computation followers of expr at interval share,
// at most interval old; ok is false when there is none (yet).
func (h *hub) latest(expr string, interval time.Duration) (res []pvql.Result, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.runs[followKey{normalise(expr), interval}]
	if r == nil || r.seq == 0 || r.err != nil {
		return nil, false
	}
	return r.result, true
}

// normalise is the expression as followers are matched: each run of white space outside
// quotes made one space, none at the ends; quoted strings are kept as written, so that 'a  b'
// and 'a b' are not the same query.
func normalise(expr string) string {
	var b strings.Builder
	var quote rune // the quote of the string being read; 0 outside strings
	escaped, space := false, false
	for i := 0; i < len(expr); {
		c, size := utf8.DecodeRuneInString(expr[i:])
		raw := expr[i : i+size] // written as it came, valid UTF-8 or not
		i += size
		switch {
		case quote != 0:
			b.WriteString(raw)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == quote:
				quote = 0
			}
			continue
		case unicode.IsSpace(c):
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteString(raw)
		if c == '\'' || c == '"' {
			quote = c
		}
	}
	return b.String()
}

// join adds a follower to the run of k, starting it on expr when there is none.
func (h *hub) join(k followKey, expr string, start startFollower) *followRun {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r := h.runs[k]; r != nil && r.err == nil {
		r.followers++
		return r
	}
	ctx, stop := context.WithCancel(context.Background())
	r := &followRun{followers: 1, stop: stop, next: make(chan struct{})}
	if h.runs == nil {
		h.runs = map[followKey]*followRun{}
	}
	h.runs[k] = r
	go h.run(ctx, k, r, start(expr))
	return r
}

// leave removes a follower, stopping the run when it was the last.
func (h *hub) leave(k followKey, r *followRun) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r.followers--; r.followers > 0 {
		return
	}
	r.stop()
	if h.runs[k] == r {
		delete(h.runs, k)
	}
}

// run answers k's expression with f every interval and publishes each answer, until ctx ends
// or an answer fails: then the run publishes the error to its followers and takes no new ones.
func (h *hub) run(ctx context.Context, k followKey, r *followRun, f Follower) {
	defer f.Close()
	t := time.NewTicker(k.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		res, err := f.Answer(ctx)
		if ctx.Err() != nil {
			return
		}
		h.mu.Lock()
		r.seq++
		r.result, r.err = res, err
		close(r.next)
		r.next = make(chan struct{})
		if err != nil && h.runs[k] == r {
			delete(h.runs, k)
		}
		h.mu.Unlock()
		if err != nil {
			return
		}
	}
}
