package queue_test

import (
	"context"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/queue"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/records/recordstest"
	"github.com/fnapi/fnapi/internal/testutil"
)

// through is a records store whose Ingest goes through the queue, as a node with -queue
// publishes: it returns once the consumer stored the records, so that a check reads them.
type through struct {
	records.Store
	t        testing.TB
	pub, sub *queue.Queue
}

func (s through) Ingest(ctx context.Context, recs []records.Record) error {
	want := s.sub.Status(ctx, time.Now()).Stored + uint64(len(recs))
	if err := s.pub.Ingest(ctx, recs); err != nil {
		return err
	}
	testutil.Eventually(s.t, "the records stored", func() bool { return s.sub.Status(ctx, time.Now()).Stored >= want })
	return nil
}

// TestStoreChecksThroughQueue runs the stores' checks of what records keep (the layers and
// their keys, the routes of each side, the probe's times and histograms, the context) on a
// DuckDB store fed through NATS: the queue loses no field.
func TestStoreChecksThroughQueue(t *testing.T) {
	t.Parallel()
	for name, check := range map[string]func(*testing.T, records.Store, int64){
		"layers":  recordstest.CheckLayers,
		"routes":  recordstest.CheckRoutes,
		"capture": recordstest.CheckCapture,
		"context": recordstest.CheckContext,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := testenv.NATS(t)
			pub, sub := open(t, srv.URL, false), open(t, srv.URL, true)
			store := openDuckDB(t)
			consume(t, sub, store)
			check(t, through{Store: store, t: t, pub: pub, sub: sub}, 1_700_000_000)
		})
	}
}
