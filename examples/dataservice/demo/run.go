package demo

import (
	"context"
	"fmt"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// Writer stores a batch of records, all or nothing; a records.Store's Ingest method is one.
type Writer func(ctx context.Context, recs []records.Record) error

// Options configure the generator; the zero value gives the defaults.
type Options struct {
	// Seed seeds the random choices: the same seed and times give the same records. Default 0.
	Seed uint64
	// Rate is how many conversations start per second at the busiest hour; the average over a
	// working day is about half of it. Default 6 (about 300,000 records a working day).
	Rate float64
	// Location is the time zone of the daily rhythm (busy in the afternoon, quiet at night).
	// Default UTC.
	Location *time.Location
	// Backfill is how much past traffic Run generates before going live. Default 24 hours;
	// negative: none.
	Backfill time.Duration
	// Interval is how often Run generates new records once live. Default 5 seconds.
	Interval time.Duration
	// Now returns the current time. Default time.Now.
	Now func() time.Time
	// Incident is when one of the recurring incidents starts (see IncidentEvery); the others
	// are every IncidentEvery before and after it. Default for Run: a minute before it
	// starts, so that a first start shows an incident at once (an alert firing within
	// seconds of the backfill, resolved a few minutes later).
	Incident time.Time
	// Plain leaves out of the records what the demo's routers and probe add (exporter,
	// interfaces, server name, times, retransmissions, resets): the records of the demo before
	// it had them, which the benchmarks' recorded figures were measured with.
	Plain bool
}

// BatchSize is how many records Run writes at most in one backfill batch.
const BatchSize = 10000

func (o Options) withDefaults() Options {
	if o.Rate <= 0 {
		o.Rate = 6
	}
	if o.Location == nil {
		o.Location = time.UTC
	}
	if o.Backfill == 0 {
		o.Backfill = 24 * time.Hour
	}
	if o.Backfill < 0 {
		o.Backfill = 0
	}
	if o.Interval <= 0 {
		o.Interval = 5 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Run generates traffic into w: first the Backfill up to now, in batches of at most BatchSize,
// then every Interval the records of the time that passed, until ctx is cancelled, when it
// returns nil. It returns the first error of w.
func Run(ctx context.Context, w Writer, opts Options) error {
	opts = opts.withDefaults()
	now := opts.Now()
	if opts.Incident.IsZero() {
		opts.Incident = now.Add(-time.Minute)
	}
	g := New(now.Add(-opts.Backfill), opts)
	var batch []records.Record
	for t := now.Add(-opts.Backfill); t.Before(now); {
		if ctx.Err() != nil { // stopped during the backfill: no need to generate the rest
			return nil
		}
		if t = t.Add(time.Minute); t.After(now) {
			t = now
		}
		recs := g.Until(t)
		if len(batch)+len(recs) > BatchSize {
			if err := write(ctx, w, batch); err != nil {
				return err
			}
			batch = nil
		}
		batch = append(batch, recs...)
	}
	if err := write(ctx, w, batch); err != nil {
		return err
	}
	tick := time.NewTicker(opts.Interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			if err := write(ctx, w, g.Until(opts.Now())); err != nil {
				return err
			}
		}
	}
}

// write writes a non-empty batch; an error caused by ctx ending is no error.
func write(ctx context.Context, w Writer, recs []records.Record) error {
	if len(recs) == 0 || ctx.Err() != nil {
		return nil
	}
	if err := w(ctx, recs); err != nil && ctx.Err() == nil {
		return fmt.Errorf("demo: write %d records: %w", len(recs), err)
	}
	return nil
}
