package duckdb

import (
	"context"
	"sync"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// maxGroup bounds the records one group commit writes: a leader takes waiting batches until
// the next would pass it, so a commit's time, and the memory of its rollup sums, stay bounded.
// The API's own limit, 100,000 records a call, fits twice.
const maxGroup = 200_000

// member is one Ingest call waiting to be committed: its batch, whether a leader took it, and
// where that leader hands back the group's result.
type member struct {
	recs []records.Record
	// id is the batch's id (IngestBatch), "" for an Ingest call.
	id    string
	taken bool
	done  chan error
}

// group coalesces concurrent Ingest calls: each call joins the queue, and whichever holds the
// write token commits every batch waiting, its own first, in one transaction.
type group struct {
	mu    sync.Mutex
	queue []*member
}

// join queues recs and returns their member.
func (g *group) join(recs []records.Record, id string) *member {
	m := &member{recs: recs, id: id, done: make(chan error, 1)}
	g.mu.Lock()
	g.queue = append(g.queue, m)
	g.mu.Unlock()
	return m
}

// joinAll queues each of recs, with the id of the same index, in one step: a leader takes
// them together, as far as maxGroup allows.
func (g *group) joinAll(recs [][]records.Record, ids []string) []*member {
	ms := make([]*member, len(recs))
	for i := range recs {
		ms[i] = &member{recs: recs[i], id: ids[i], done: make(chan error, 1)}
	}
	g.mu.Lock()
	g.queue = append(g.queue, ms...)
	g.mu.Unlock()
	return ms
}

// take makes the caller of m the leader: it returns m and the batches queued after or before
// it, up to maxGroup records, all marked taken; nil when another leader took m already.
func (g *group) take(m *member) []*member {
	g.mu.Lock()
	defer g.mu.Unlock()
	if m.taken {
		return nil
	}
	m.taken = true
	ms, n := []*member{m}, len(m.recs)
	rest := g.queue[:0]
	for _, o := range g.queue {
		switch {
		case o == m:
		case n+len(o.recs) <= maxGroup:
			o.taken = true
			ms = append(ms, o)
			n += len(o.recs)
		default:
			rest = append(rest, o)
		}
	}
	clear(g.queue[len(rest):])
	g.queue = rest
	return ms
}

// leave removes m from the queue unless a leader took it; it reports whether it did.
func (g *group) leave(m *member) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if m.taken {
		return false
	}
	for i, o := range g.queue {
		if o == m {
			g.queue = append(g.queue[:i], g.queue[i+1:]...)
			break
		}
	}
	return true
}

// ingestGrouped stores m's batch with the others waiting: it returns m's result, nil once the
// group holding it is committed. commit writes the batches of one group in one transaction.
func (s *Store) ingestGrouped(ctx context.Context, m *member, commit func(context.Context, []*member) error) error {
	select {
	case err := <-m.done:
		return err
	case <-s.write:
	case <-ctx.Done():
		if s.group.leave(m) {
			return ctx.Err()
		}
		// A leader is committing m already: its answer is the one that holds.
		return <-m.done
	}
	ms := s.group.take(m)
	if ms == nil {
		s.unlock()
		return <-m.done
	}
	// The group's members do not share the leader's deadline: once taken, a batch is
	// committed or fails with the others, whichever caller leads.
	err := commit(context.WithoutCancel(ctx), ms)
	s.unlock()
	for _, o := range ms {
		o.done <- err
	}
	return <-m.done
}
