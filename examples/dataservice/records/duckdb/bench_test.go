package duckdb_test

import (
	"context"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/records/recordstest"
)

// BenchmarkIngest measures Ingest in batches of 10,000 records into a file-backed store; the
// records/s metric is the figure to watch (the target is above 200,000 on two cores).
func BenchmarkIngest(b *testing.B) { benchIngest(b, func([]records.Record) {}) }

// benchIngest measures Ingest of one batch of 10,000 sample records, which fill shapes first,
// again and again into a file-backed store, in records/s and CPU ns a record.
func benchIngest(b *testing.B, fill func(recs []records.Record)) {
	s := openStore(b, b.TempDir())
	defer s.Close()
	ctx := context.Background()
	const batch = 10000
	recs := recordstest.Sample(batch, 1700000000)
	fill(recs)
	b.ResetTimer()
	cpu := testenv.CPUTime()
	for b.Loop() {
		if err := s.Ingest(ctx, recs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64((testenv.CPUTime()-cpu).Nanoseconds())/float64(b.N*batch), "cpu-ns/record")
}

// BenchmarkIngestContext is BenchmarkIngest with records carrying a context as the service
// resolves it (zones, ASes, countries, exporter and interface names; issue 25), which the
// context's rollups keep in the transaction too.
func BenchmarkIngestContext(b *testing.B) {
	benchIngest(b, withContext)
}

// withContext gives recs the contexts of recordstest.ContextBatch(60), in turn.
func withContext(recs []records.Record) {
	places := recordstest.ContextBatch(60, 1700000000)
	for i := range recs {
		p := &places[i%len(places)]
		recs[i].Client.Place, recs[i].Server.Place = p.Client.Place, p.Server.Place
		recs[i].ExporterName, recs[i].InIfName, recs[i].InIfAlias = p.ExporterName, p.InIfName, p.InIfAlias
	}
}

// BenchmarkIngestLive is BenchmarkIngest with the records of a batch over 10 seconds, as a
// service ingesting live traffic gets them, rather than one a second over 3 hours: rollups gain
// rows by the bucket and keys a batch holds, so this is the rollups' cost as a live service
// pays it.
func BenchmarkIngestLive(b *testing.B) { benchIngest(b, live) }

// BenchmarkIngestLiveContext is BenchmarkIngestLive with the context of
// BenchmarkIngestContext: its cost against BenchmarkIngestLive is the context's (issue 25).
func BenchmarkIngestLiveContext(b *testing.B) {
	benchIngest(b, func(recs []records.Record) {
		live(recs)
		withContext(recs)
	})
}

// live puts recs over 10 seconds.
func live(recs []records.Record) {
	for i := range recs {
		recs[i].Time = 1700000000 + int64(i*10/len(recs))
	}
}

// BenchmarkIngestCapture is BenchmarkIngest with records as a capture probe fills them: 1 to
// 3 srt samples of 1 to 500 ms with their histogram, one server rtt sample (averaged, no
// histogram), a retransmission on every fourth, which every rollup keeps (Rollup.Measures).
func BenchmarkIngestCapture(b *testing.B) { benchIngest(b, withCapture) }

// withCapture fills recs as a capture probe does: 1 to 3 srt samples of 1 to 500 ms with their
// histogram, one server rtt sample (averaged, no histogram), a retransmission on every fourth.
func withCapture(recs []records.Record) {
	for i := range recs {
		r := &recs[i]
		for j := range 1 + i%3 {
			us := uint64(1000 + (i*7919+j*104729)%499_000)
			r.SRT.Sum += us
			r.SRT.Samples++
			r.SRT.Hist.Add(float64(us) / 1e6)
		}
		r.Server.RTT = records.Timing{Sum: uint64(20000 + i%5000), Samples: 1}
		r.Server.Retrans = uint64(i % 4 / 3)
	}
}

// BenchmarkIngestConcurrent measures Ingest from four callers at once (as from several
// collectors and clients), each with batches of 10,000 records: concurrent batches share a
// commit (group commit), so this is where it shows.
func BenchmarkIngestConcurrent(b *testing.B) {
	s := openStore(b, b.TempDir())
	defer s.Close()
	const batch = 10000
	recs := recordstest.Sample(batch, 1700000000)
	b.SetParallelism(2)
	b.ResetTimer()
	cpu := testenv.CPUTime()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := s.Ingest(context.Background(), recs); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64((testenv.CPUTime()-cpu).Nanoseconds())/float64(b.N*batch), "cpu-ns/record")
}

// BenchmarkCatchUp measures the background step of the rollup with addresses over what 30
// iterations of BenchmarkIngest leave it (300,000 records over three hours, 10,000 client
// addresses, and one a while later, which makes those hours due), ingested into a new store before the clock starts. cpu-ns/record is the step's
// cost per record, to add to BenchmarkIngest's for the whole.
func BenchmarkCatchUp(b *testing.B) { benchCatchUp(b, func([]records.Record) {}) }

// BenchmarkCatchUpCapture is BenchmarkCatchUp with records as a capture probe fills them
// (withCapture): the step merges their histograms in SQL (mergeHists).
func BenchmarkCatchUpCapture(b *testing.B) { benchCatchUp(b, withCapture) }

// benchCatchUp measures the background step over 30 batches of 10,000 sample records, which
// fill shapes first.
func benchCatchUp(b *testing.B, fill func(recs []records.Record)) {
	ctx := context.Background()
	const batches, batch = 30, 10000
	recs := recordstest.Sample(batch, 1700000000)
	fill(recs)
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		s := openStore(b, b.TempDir())
		for range batches {
			if err := s.Ingest(ctx, recs); err != nil {
				b.Fatal(err)
			}
		}
		// A record well after them makes their every hour due.
		if err := s.Ingest(ctx, recordstest.Sample(1, 1700020000)); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := testenv.CPUTime()
		if err := s.CatchUp(ctx); err != nil {
			b.Fatal(err)
		}
		cpu += testenv.CPUTime() - start
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(b.N*batches*batch)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*batches*batch), "cpu-ns/record")
}

// BenchmarkSumRollups measures summing every record of a store into each rollup in SQL, as the
// schema steps do when they make or fill a rollup (and the background step and retention do
// over a bucket): 300,000 capture records (withCapture) over three hours, each rollup a
// sub-benchmark, its histograms merged by mergeHists.
func BenchmarkSumRollups(b *testing.B) {
	s := openStore(b, b.TempDir())
	defer s.Close()
	ctx := context.Background()
	recs := recordstest.Sample(10000, 1700000000)
	withCapture(recs)
	for range 30 {
		if err := s.Ingest(ctx, recs); err != nil {
			b.Fatal(err)
		}
	}
	for i, table := range s.RollupTables() {
		b.Run(table, func(b *testing.B) {
			var rows int
			for b.Loop() {
				var err error
				if rows, err = s.SumRollup(ctx, i); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(rows), "rows")
		})
	}
}
