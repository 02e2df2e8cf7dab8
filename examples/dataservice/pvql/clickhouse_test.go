package pvql

import (
	"context"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// TestClickHouseSameAnswers is the differential test of the two records engines: the same
// records in DuckDB, in one ClickHouse server and in a two-shard ClickHouse cluster; every
// descriptor and the random queries (all keys, filters, CIDRs, HAVING, TOP, time(N), empty and
// reversed periods, IPv4 and IPv6) answer as the reference does and as DuckDB does.
func TestClickHouseSameAnswers(t *testing.T) {
	recs := testRecords()
	duck := New(openDB(t, recs))
	single := testenv.ClickHouse(t)
	shards := testenv.ClickHouseCluster(t, 2)
	for _, tc := range []struct {
		name, url, cluster string
	}{
		{"single", single.URL, ""},
		{"cluster", shards[0].URL, testenv.ClickHouseClusterName},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := records.OpenClickHouse(context.Background(), tc.url, tc.cluster)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			load(t, s, recs)
			engine := New(s, WithStreamSlices(3))
			checkDescriptors(t, engine, recs)
			checkRandomQueries(t, engine, recs, 300, duck)
		})
	}
}
