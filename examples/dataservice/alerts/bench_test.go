package alerts_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/alerts"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/pvql"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/records/duckdb"
	"github.com/fnapi/fnapi/examples/dataservice/state"
)

// BenchmarkEvaluate measures evaluation rounds of 100, 1,000 and 10,000 rules of a realistic
// mix (benchRule: mixed) and of shapes shared by many (shared) over benchRecords() records spread over the last 24 hours from 4,000
// servers and 30 applications, a minute of new records arriving before each round: with live
// answers (DuckDB; each standing answer re-reads what arrived) and in full (ClickHouse's way).
// It reports the CPU time of the whole process (Go and DuckDB's threads) per round and per
// rule, and the share of one core that a round every 60 s takes.
//
//	go test -run '^$' -bench Evaluate -benchtime 3x ./alerts/
//	FNAPI_BENCH_RECORDS=10000000 go test -run '^$' -bench Evaluate -benchtime 3x -timeout 60m ./alerts/
//
// The records are loaded once per count into a DuckDB file kept under FNAPI_BENCH_DIR
// (default $TMPDIR/fnapi-alerts-bench) and copied for each run.
func BenchmarkEvaluate(b *testing.B) {
	ctx := context.Background()
	recs, end := benchStore(b, benchRecords())
	perMinute := max(benchRecords()/1440, 1)
	now := time.Unix(end, 0)
	for _, mix := range []string{"mixed", "shared"} {
		for _, n := range []int{100, 1000, 10_000} {
			for _, live := range []bool{true, false} {
				mode := map[bool]string{true: "live", false: "full"}[live]
				b.Run(fmt.Sprintf("%s/rules=%d/%s", mix, n, mode), func(b *testing.B) {
					e := envOver(b, recs, alerts.Options{}, live)
					benchRules(b, e, n, mix == "shared", nil)
					if err := e.ev.Tick(ctx, now); err != nil { // the standing answers' first read
						b.Fatal(err)
					}
					var cpu time.Duration
					rounds := 0
					for b.Loop() {
						b.StopTimer()
						ingest(b, recs, genRecords(now.Unix(), now.Unix()+60, perMinute, uint64(now.Unix())))
						now = now.Add(time.Minute)
						b.StartTimer()
						c := testenv.CPUTime()
						if err := e.ev.Tick(ctx, now); err != nil {
							b.Fatal(err)
						}
						cpu += testenv.CPUTime() - c
						rounds++
					}
					firing, err := e.st.Instances(ctx, "")
					if err != nil {
						b.Fatal(err)
					}
					round := cpu / time.Duration(rounds)
					b.ReportMetric(float64(round.Microseconds())/1000, "cpu-ms/round")
					b.ReportMetric(float64(round.Microseconds())/float64(n), "cpu-µs/rule")
					b.ReportMetric(100*round.Seconds()/60, "%core@60s")
					b.ReportMetric(float64(len(firing)), "alerts")
				})
			}
		}
	}
}

// benchRules creates n rules of benchRule's mix in e (only the shapes shared by many when
// shared is set), every 60 s, each notifying notify.
func benchRules(b *testing.B, e *env, n int, shared bool, notify json.RawMessage) {
	ctx := context.Background()
	for i := range n {
		q := benchRule(i)
		if shared && i%10 >= 8 {
			q = benchRule(i - 8)
		}
		if _, err := pvql.Parse(q); err != nil { // the evaluator would only log it
			b.Fatal(err)
		}
		if _, err := e.st.CreateRule(ctx, state.AlertRule{Name: "r", Interval: time.Minute, Query: q, Notify: notify}, n+1); err != nil {
			b.Fatal(err)
		}
	}
}

// benchRule is the query of the benchmark's rule i, a mix where most rules share their
// query's shape (they differ in their threshold) and some do not (mixed; shared replaces the
// last two kinds with the first):
//   - 5 in 10: traffic by server, thresholds from 1e6 to 1e9 (at 10M records, those under
//     1e7 fire on the busiest few hundred servers: about 1,900 alerts firing);
//   - 2 in 10: traffic by application, thresholds from 1e7 to 1e10;
//   - 1 in 10: packets by server and port over the last 10 minutes;
//   - 1 in 10: traffic by application against its average of the six hours before
//     (baseline(traffic, 1h, 6)), with one of three factors: three distinct queries, each a
//     computation of its own (baselines are not shared by shape);
//   - 1 in 10: traffic by client of one server of its own: a query of its own each.
func benchRule(i int) string {
	k := strconv.Itoa(1 + i/10%1000) // thresholds k × 10^m
	switch i % 10 {
	case 0, 1, 2, 3, 4:
		return "traffic BY server.ip HAVING traffic > " + k + "e6 SINCE @now-300"
	case 5, 6:
		return "traffic BY application HAVING traffic > " + k + "e7 SINCE @now-300"
	case 7:
		return "packets BY server.ip, server.port HAVING packets > " + k + "e3 SINCE @now-600"
	case 8:
		return "traffic BY application HAVING traffic > " + strconv.Itoa(2+i/10%3) + " * baseline(traffic, 1h, 6) SINCE @now-300"
	}
	return "traffic WHERE server.ip = " + benchServer(i/10).String() + " BY client.ip HAVING traffic > 1e8 SINCE @now-300"
}

// benchRecords is how many records BenchmarkEvaluate loads: FNAPI_BENCH_RECORDS, default
// 100,000.
func benchRecords() int {
	if n, err := strconv.Atoi(os.Getenv("FNAPI_BENCH_RECORDS")); err == nil && n > 0 {
		return n
	}
	return 100_000
}

// benchStore returns a store holding n records spread over the 24 hours before end (a whole
// minute), a copy of a file loaded once and kept under FNAPI_BENCH_DIR (default
// $TMPDIR/fnapi-alerts-bench), so that 10M records load once for many runs.
func benchStore(b *testing.B, n int) (*duckdb.Store, int64) {
	b.Helper()
	ctx := context.Background()
	cache := os.Getenv("FNAPI_BENCH_DIR")
	if cache == "" {
		cache = filepath.Join(os.TempDir(), "fnapi-alerts-bench")
	}
	kept := filepath.Join(cache, fmt.Sprintf("records-%d", n))
	raw, err := os.ReadFile(filepath.Join(kept, "end"))
	if err != nil {
		part := kept + ".part"
		if err := os.RemoveAll(part); err != nil {
			b.Fatal(err)
		}
		start, cpu := time.Now(), testenv.CPUTime()
		end := load(b, part, n)
		b.Logf("loaded %d records in %v (%v of CPU)", n, time.Since(start).Round(time.Second), (testenv.CPUTime() - cpu).Round(time.Second))
		raw = []byte(strconv.FormatInt(end, 10))
		if err := os.WriteFile(filepath.Join(part, "end"), raw, 0o600); err != nil {
			b.Fatal(err)
		}
		if err := os.Rename(part, kept); err != nil {
			b.Fatal(err)
		}
	}
	end, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	copyFile(b, filepath.Join(kept, duckdb.FileName), filepath.Join(dir, duckdb.FileName))
	s, err := duckdb.Open(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s, end
}

// load ingests n records over the 24 hours before the current minute into a new store in
// dir, hour by hour in batches of 100,000 (in time order, as a store receives them), has the
// background rollups catch up, closes the store and returns the end of the period.
func load(b *testing.B, dir string, n int) int64 {
	ctx := context.Background()
	s, err := duckdb.Open(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	end := time.Now().Truncate(time.Minute).Unix()
	const hours = 24
	for h := range int64(hours) {
		from := end - (hours-h)*3600
		k := n / hours
		if h == hours-1 { // the rest in the last hour
			k = n - (hours-1)*(n/hours)
		}
		recs := genRecords(from, from+3600, k, uint64(h))
		for len(recs) > 0 {
			m := min(len(recs), 100_000)
			ingest(b, s, recs[:m])
			recs = recs[m:]
		}
	}
	if err := s.CatchUp(ctx); err != nil {
		b.Fatal(err)
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	return end
}

func ingest(b *testing.B, s records.Store, recs []records.Record) {
	if err := s.Ingest(context.Background(), recs); err != nil {
		b.Fatal(err)
	}
}

// benchServers and benchClients are how many servers and clients the records have; benchApps
// their applications (protocol, server port).
const benchServers, benchClients = 4000, 100_000

var benchApps = []struct {
	proto uint8
	port  uint16
}{
	{6, 443}, {6, 80}, {17, 53}, {17, 443}, {6, 22}, {6, 25}, {6, 3306}, {6, 5432}, {17, 123}, {6, 993},
	{6, 8080}, {6, 6379}, {6, 9092}, {6, 445}, {6, 389}, {17, 161}, {6, 3389}, {6, 27017}, {6, 9200}, {17, 514},
	{6, 1433}, {6, 5672}, {6, 11211}, {17, 1194}, {6, 8443}, {6, 143}, {6, 587}, {17, 3478}, {6, 2049}, {6, 21},
}

func benchServer(i int) netip.Addr { return netip.AddrFrom4([4]byte{10, 1, byte(i >> 8), byte(i)}) }

// genRecords returns n records evenly spread over [from, to), drawn from seed: servers,
// clients and applications skewed towards a busy few, as on a real network.
func genRecords(from, to int64, n int, seed uint64) []records.Record {
	rng := rand.New(rand.NewPCG(seed, 28))
	skewed := func(n int) int { return rng.IntN(1 + rng.IntN(n)) }
	recs := make([]records.Record, n)
	for i := range recs {
		app := benchApps[skewed(len(benchApps))]
		c := rng.IntN(benchClients)
		recs[i] = records.Record{Time: from + int64(i)*(to-from)/int64(n), Protocol: app.proto,
			Application: records.Application(app.proto, app.port),
			Client: records.Endpoint{IP: netip.AddrFrom4([4]byte{172, 16 + byte(c>>16), byte(c >> 8), byte(c)}),
				Port: uint16(32768 + rng.IntN(28000)), Bytes: uint64(200 + rng.IntN(2000)), Packets: uint64(2 + rng.IntN(10))},
			Server: records.Endpoint{IP: benchServer(skewed(benchServers)), Port: app.port,
				Bytes: uint64(1000 + rng.ExpFloat64()*40_000), Packets: uint64(2 + rng.IntN(40))}}
	}
	return recs
}

func copyFile(b *testing.B, from, to string) {
	in, err := os.Open(from)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
}
