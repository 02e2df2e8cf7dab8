package records_test

import (
	"context"
	"testing"
)

// BenchmarkIngest measures Ingest in batches of 10,000 records into a file-backed store; the
// records/s metric is the figure to watch (the target is above 200,000 on two cores).
func BenchmarkIngest(b *testing.B) {
	s := openStore(b, b.TempDir())
	defer s.Close()
	ctx := context.Background()
	const batch = 10000
	recs := sample(batch, 1700000000)
	b.ResetTimer()
	for b.Loop() {
		if err := s.Ingest(ctx, recs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "records/s")
}
