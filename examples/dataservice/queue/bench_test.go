package queue_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/records/recordstest"
	"github.com/fnapi/fnapi/internal/testutil"
)

// benchBatch is the records of one batch in the benchmarks: flow records, as a collector's.
const benchBatch = 5000

// senders is how many goroutines publish at once, as four sensors.
const senders = 4

// ingestAll calls ingest b.N times (batches of benchBatch records) from senders goroutines,
// and returns how many records it gave, their rate and the process's CPU time per record.
func ingestAll(b *testing.B, ingest func(context.Context, []records.Record) error) (n, perSecond, cpuPerRecord float64) {
	batches := make([][]records.Record, senders)
	for i := range batches {
		batches[i] = recordstest.Batch(benchBatch, 1_700_000_000+int64(i))
	}
	b.ResetTimer()
	cpu, start := testenv.CPUTime(), time.Now()
	var wg sync.WaitGroup
	per := (b.N + senders - 1) / senders
	for s := range senders {
		wg.Go(func() {
			for range per {
				if err := ingest(context.Background(), batches[s]); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	n = float64(per * senders * benchBatch)
	return n, n / time.Since(start).Seconds(), float64(testenv.CPUTime()-cpu) / n
}

// report reports the rate and CPU per record of ingestAll.
func report(b *testing.B, ingest func(context.Context, []records.Record) error) {
	_, perSecond, cpuPerRecord := ingestAll(b, ingest)
	b.ReportMetric(perSecond, "records/s")
	b.ReportMetric(cpuPerRecord, "cpu-ns/record")
}

// BenchmarkPublish publishes from four goroutines to one NATS server: records/s, and the CPU
// this process (the publisher alone: NATS is another process) spends per record.
func BenchmarkPublish(b *testing.B) {
	q := open(b, testenv.NATS(b).URL, false)
	report(b, q.Ingest)
}

// BenchmarkThroughQueue publishes from four goroutines and stores through a consumer into
// DuckDB, in one process: records/s from the first publish to the last record stored (the
// CPU is left out: the wait for the last record reads the store every 5 ms).
func BenchmarkThroughQueue(b *testing.B) {
	url := testenv.NATS(b).URL
	pub, sub := open(b, url, false), open(b, url, true)
	store := openDuckDB(b)
	consume(b, sub, store)
	start := time.Now()
	n, _, _ := ingestAll(b, pub.Ingest)
	testutil.Eventually(b, "every record stored", func() bool { return recordstest.Count(b, store) >= int64(n) })
	b.ReportMetric(n/time.Since(start).Seconds(), "records/s")
}

// BenchmarkDirect stores from four goroutines straight into DuckDB: the path without a queue
// that BenchmarkThroughQueue compares with.
func BenchmarkDirect(b *testing.B) {
	store := openDuckDB(b)
	report(b, store.Ingest)
}

// BenchmarkClickHouse compares, on one ClickHouse server in one run, the direct path (four
// goroutines storing through the store's Ingest) with the path through the queue (four
// publishing, this process's consumer storing, gathering batches into larger writes):
// records/s, the queue's to the last record stored, and the ClickHouse server's CPU per
// record (ch-cpu-ns/record: its own work, the rollups' views and merges included).
func BenchmarkClickHouse(b *testing.B) {
	srv := testenv.ClickHouse(b)
	url := testenv.NATS(b).URL
	b.Run("direct", func(b *testing.B) {
		store := openClickHouse(b, srv)
		chcpu := srv.CPUTime()
		n, perSecond, cpuPerRecord := ingestAll(b, store.Ingest)
		b.ReportMetric(perSecond, "records/s")
		b.ReportMetric(cpuPerRecord, "cpu-ns/record")
		b.ReportMetric(float64(srv.CPUTime()-chcpu)/n, "ch-cpu-ns/record")
	})
	b.Run("queue", func(b *testing.B) {
		store := openClickHouse(b, srv)
		before := recordstest.Count(b, store)
		pub, sub := open(b, url, false), open(b, url, true)
		consume(b, sub, store)
		chcpu, start := srv.CPUTime(), time.Now()
		n, _, _ := ingestAll(b, pub.Ingest)
		testutil.Until(b, 5*time.Minute, "every record stored", func() error {
			if got := recordstest.Count(b, store) - before; got < int64(n) {
				return fmt.Errorf("%d of %g stored", got, n)
			}
			return nil
		})
		b.ReportMetric(n/time.Since(start).Seconds(), "records/s")
		b.ReportMetric(float64(srv.CPUTime()-chcpu)/n, "ch-cpu-ns/record")
	})
}
