package pvql

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// The layer queue answers from the node's queue (-queue, issue 41) instead of the records
// store, so that a rule watching the consumers' lag still answers while the store is down,
// which is when the lag grows: `oldest_age FROM queue HAVING oldest_age > 300`. A statement
// FROM queue has one group, no BY, no WHERE, and only the queue's values, which no other
// layer has; SINCE and UNTIL do not apply (the values are the queue's now).

// QueueState is what the layer queue answers: the stream's lag, as JetStream reports it, and
// the counters of the node answering.
type QueueState struct {
	// Pending is how many batches wait in the stream to be stored; DeadLetters how many the
	// store refused (in the dead-letter subject); OldestAge the age of the oldest waiting
	// batch in seconds (0 when none waits).
	Pending, DeadLetters uint64
	OldestAge            float64
	// Redelivered is how many batches this node's consumer was given again; Published how
	// many records this node published. Both count from the node's start.
	Redelivered, Published uint64
}

// WithQueue sets where the layer queue's values come from; without it a statement FROM queue
// fails, saying the node has no queue. An error of state is the query's.
func WithQueue(state func(context.Context) (QueueState, error)) Option {
	return func(e *Engine) { e.queue = state }
}

// ErrNoQueue is the error of a statement FROM queue on a node without -queue.
var ErrNoQueue = errors.New("pvql: FROM queue: this node has no queue (-queue)")

// queueValue is one of the layer queue's values; in a statement FROM queue, the group's sums
// hold them (sums[v] the bits of the float64), since it has no records' sums.
type queueValue int

var queueValues = []struct {
	name, desc string
	of         func(QueueState) float64
}{
	{"pending", "Batches waiting in the stream to be stored (the consumers' lag).", func(s QueueState) float64 { return float64(s.Pending) }},
	{"redelivered", "Batches this node's consumer was given again since it started.", func(s QueueState) float64 { return float64(s.Redelivered) }},
	{"dead_letters", "Batches the store refused, in the dead-letter subject.", func(s QueueState) float64 { return float64(s.DeadLetters) }},
	{"oldest_age", "Age of the oldest waiting batch, in seconds; 0 when none waits.", func(s QueueState) float64 { return s.OldestAge }},
	{"published", "Records this node published since it started.", func(s QueueState) float64 { return float64(s.Published) }},
}

func queueValueByName(name string) (queueValue, bool) {
	for i, v := range queueValues {
		if strings.EqualFold(name, v.name) {
			return queueValue(i), true
		}
	}
	return 0, false
}

// checkQueue refuses a statement mixing the layer queue with records' keys, filters or values,
// or the queue's values with another layer; from is where the statement starts.
func (p *parser) checkQueue(st *Statement, from int) error {
	queue := st.layer == lQueue
	bad := ""
	for _, v := range st.values {
		walkExpr(v.x, func(x expr) {
			switch x.(type) {
			case queueValue:
				if !queue {
					bad = exprString(x, 0, false) + " is a value of the layer queue: add FROM queue"
				}
			case numberExpr, *binaryExpr:
			default:
				if queue {
					bad = exprString(x, 0, false) + " is not a value of the layer queue"
				}
			}
		})
	}
	if queue && (len(st.keys) > 0 || st.where != nil) {
		bad = "FROM queue has no keys: no BY, no WHERE"
	}
	if bad == "" {
		return nil
	}
	names := make([]string, len(queueValues))
	for i, v := range queueValues {
		names[i] = v.name
	}
	return &SyntaxError{Position: utf8.RuneCountInString(p.src[:from]), Message: bad,
		Expected: "FROM queue with its values alone (" + strings.Join(names, ", ") + ")"}
}

// walkExpr calls fn on x and, for a binary expression, its operands.
func walkExpr(x expr, fn func(expr)) {
	fn(x)
	if b, ok := x.(*binaryExpr); ok {
		walkExpr(b.l, fn)
		walkExpr(b.r, fn)
	}
}

// readQueue gives each state FROM queue its one group, of the queue's values now.
func (e *Engine) readQueue(ctx context.Context, states []*state) error {
	var qs *QueueState
	for _, s := range states {
		if s.st.layer != lQueue {
			continue
		}
		if qs == nil {
			if e.queue == nil {
				return ErrNoQueue
			}
			v, err := e.queue(ctx)
			if err != nil {
				return fmt.Errorf("pvql: FROM queue: %w", err)
			}
			qs = &v
		}
		sm := s.groups.at(gkey{})
		for i, v := range queueValues {
			sm[i] = math.Float64bits(v.of(*qs))
		}
	}
	return nil
}

func hasQueue(stmts []*Statement) bool {
	for _, st := range stmts {
		if st.layer == lQueue {
			return true
		}
	}
	return false
}
