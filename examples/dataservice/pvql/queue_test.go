package pvql_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/pvql"
)

// TestQueueLayer checks the layer queue: its values come from WithQueue's function, never
// from the store (the engine has none here), HAVING applies to them, and every way of
// answering (Query, Live, AnswerEach) gives them.
func TestQueueLayer(t *testing.T) {
	t.Parallel()
	state := pvql.QueueState{Pending: 7, DeadLetters: 2, OldestAge: 400.5, Redelivered: 3, Published: 90_000}
	e := pvql.New(nil, pvql.WithQueue(func(context.Context) (pvql.QueueState, error) { return state, nil }))
	ctx, now := context.Background(), time.Now()

	res, err := e.Query(ctx, "pending, dead_letters, oldest_age, redelivered, published, pending * 2 FROM queue", now, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if got := res[0].Data; len(got) != 1 || len(got[0].Keys) != 0 || !equalFloats(got[0].Values, []float64{7, 2, 400.5, 3, 90_000, 14}) {
		t.Errorf("rows %+v", got)
	}
	rule := "oldest_age FROM queue HAVING oldest_age > 300"
	for _, c := range []struct {
		age  float64
		rows int
	}{{400.5, 1}, {12, 0}} {
		state.OldestAge = c.age
		res, err := e.Query(ctx, rule, now, time.Hour)
		if err != nil || len(res[0].Data) != c.rows {
			t.Errorf("age %g: %+v, %v; want %d rows", c.age, res, err, c.rows)
		}
		l, err := e.Live(rule, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err = l.Answer(ctx, now, time.Hour)
		l.Close()
		if err != nil || len(res[0].Data) != c.rows {
			t.Errorf("age %g, Live: %+v, %v; want %d rows", c.age, res, err, c.rows)
		}
		stmts, _ := pvql.Parse(rule)
		res, err = e.AnswerEach(ctx, stmts, now, time.Hour)
		if err != nil || len(res[0].Data) != c.rows {
			t.Errorf("age %g, AnswerEach: %+v, %v; want %d rows", c.age, res, err, c.rows)
		}
	}

	if _, err := pvql.New(nil).Query(ctx, rule, now, time.Hour); !errors.Is(err, pvql.ErrNoQueue) {
		t.Errorf("no queue: %v, want ErrNoQueue", err)
	}
	down := errors.New("nats: no servers available")
	e = pvql.New(nil, pvql.WithQueue(func(context.Context) (pvql.QueueState, error) { return pvql.QueueState{}, down }))
	if _, err := e.Query(ctx, rule, now, time.Hour); !errors.Is(err, down) {
		t.Errorf("queue down: %v, want its error", err)
	}
}

// TestQueueLayerSyntax checks that the queue's values and the records' do not mix.
func TestQueueLayerSyntax(t *testing.T) {
	t.Parallel()
	for expr, want := range map[string]string{
		"pending HAVING pending > 1":              "pending is a value of the layer queue: add FROM queue",
		"traffic FROM queue":                      "traffic is not a value of the layer queue",
		"pending / traffic FROM queue":            "traffic is not a value of the layer queue",
		"pending FROM queue BY client.ip":         "FROM queue has no keys",
		"pending FROM queue WHERE protocol = tcp": "FROM queue has no keys",
		"records; oldest_age":                     "oldest_age is a value of the layer queue",
	} {
		_, err := pvql.Parse(expr)
		var se *pvql.SyntaxError
		if !errors.As(err, &se) || !strings.Contains(se.Message, want) || !strings.Contains(se.Expected, "oldest_age") {
			t.Errorf("%q: %v, want a syntax error saying %q", expr, err, want)
		}
	}
	if _, err := pvql.Parse("oldest_age AS \"age\" FROM queue HAVING \"age\" > 300 SINCE @now-300"); err != nil {
		t.Error(err)
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
