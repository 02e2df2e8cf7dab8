package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"net/http/httptest"

	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/demo"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/netctx"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// The records go to DuckDB, or with FNAPI_BENCH_CLICKHOUSE=URL (and
// FNAPI_BENCH_CLICKHOUSE_CLUSTER=NAME) to ClickHouse, whose records table must be empty.

// benchRecords is how many records the query benchmarks load: FNAPI_BENCH_RECORDS, default
// 10 million over the last 24 hours.
func benchRecords() int {
	if n, err := strconv.Atoi(os.Getenv("FNAPI_BENCH_RECORDS")); err == nil && n > 0 {
		return n
	}
	return 10_000_000
}

// benchDays is over how many days before now the records spread: FNAPI_BENCH_DAYS, default 1.
func benchDays() int {
	if n, err := strconv.Atoi(os.Getenv("FNAPI_BENCH_DAYS")); err == nil && n > 0 {
		return n
	}
	return 1
}

// benchDir is the data directory the query benchmarks load and keep: FNAPI_BENCH_DIR. When it
// holds a finished load (its file benchLoadFile), the benchmarks use its records as they are, so
// that one slow load of 100M records serves many runs, each a process whose DuckDB starts cold.
// A directory whose load did not finish must be deleted. Default: a new temporary directory.
func benchDir() (dir string, kept bool, err error) {
	if dir = os.Getenv("FNAPI_BENCH_DIR"); dir != "" {
		return dir, true, os.MkdirAll(dir, 0o700)
	}
	dir, err = os.MkdirTemp("", "dataservice-bench-")
	return dir, false, err
}

// benchCapture says whether the loaded records carry a capture probe's measures:
// FNAPI_BENCH_CAPTURE=1 gives every TCP record 1 to 3 srt samples with their histogram
// (withCapture), as the probe's records have.
func benchCapture() bool { return os.Getenv("FNAPI_BENCH_CAPTURE") == "1" }

// withCapture gives each TCP record of recs 1 to 3 srt samples of 1 to 500 ms, log-uniform,
// with their histogram, drawn from the record's own fields so that every load is the same.
func withCapture(recs []records.Record) {
	for i := range recs {
		r := &recs[i]
		if r.Protocol != records.TCP {
			continue
		}
		h := uint64(r.Client.Port)*2654435761 ^ r.Client.Bytes*40503 ^ uint64(r.Time)
		var t records.Timing
		for range 1 + h%3 {
			h = h*6364136223846793005 + 1442695040888963407
			v := 0.001 * math.Pow(500, float64(h>>11)/(1<<53))
			t.Sum += uint64(math.Round(v * 1e6))
			t.Samples++
			t.Hist.Add(v)
		}
		r.SRT = t
	}
}

// benchLoadFile, in a kept benchmark directory, records its finished load: records, seconds.
const benchLoadFile = "bench-load.json"

type benchLoad struct {
	Records int     `json:"records"`
	Seconds float64 `json:"seconds"`
}

var loaded struct {
	once sync.Once
	c    *client.Client
	n    int
	err  error
	// For requests the benchmarks build themselves.
	srv *httptest.Server
	key string
	dir string // the data directory
	app *app.App
	// genRate is the demo generator's Rate that makes records at the density of those loaded.
	genRate float64
	// rate is the records/s of the load, straight into the store in batches of 100,000.
	rate float64
}

// loadService opens a service in benchDir(), loads benchRecords() demo records spread over the
// last benchDays() days straight into its store (unless the directory holds a load already), and
// returns an API-key client for it over TLS. It is shared by the query benchmarks and left for
// the process to end. The retention is set to a year, so that no record of a kept directory
// ages out between runs, and the rate limit is off.
func loadService(b *testing.B) (*client.Client, int) {
	loaded.once.Do(func() {
		dir, kept, err := benchDir()
		if err != nil {
			loaded.err = err
			return
		}
		b.Setenv("SVC_ADMIN_PASSWORD", "bench password")
		ctx := context.Background()
		cfg := app.Config{DataDir: dir,
			ClickHouse: os.Getenv("FNAPI_BENCH_CLICKHOUSE"), ClickHouseCluster: os.Getenv("FNAPI_BENCH_CLICKHOUSE_CLUSTER"),
			Auth: []auth.Option{auth.WithArgon2(auth.Argon2{Memory: 64, Iterations: 1, Parallelism: 1})}}
		if m, err := strconv.ParseInt(os.Getenv("FNAPI_BENCH_QUERY_MEMORY"), 10, 64); err == nil {
			cfg.Query.QueryMemory = m
		}
		if benchContext() {
			if cfg.Inlet.GeoIPASN, cfg.Inlet.GeoIPCountry, loaded.err = benchGeoFiles(dir); loaded.err != nil {
				return
			}
		}
		a, err := app.Open(ctx, cfg)
		if err != nil {
			loaded.err = err
			return
		}
		if benchContext() {
			if loaded.err = a.Resolver().Set(benchZones(), nil); loaded.err != nil {
				return
			}
		}
		loaded.app, loaded.genRate = a, genRate(benchRecords(), benchDays())
		srv := httptest.NewTLSServer(a.Handler())
		anon, _ := client.New(srv.URL+"/api", client.WithHTTPClient(srv.Client()))
		var session, key string
		if loaded.err = anon.Call(ctx, "login", map[string]string{"user": "admin", "password": "bench password"}, &session); loaded.err != nil {
			return
		}
		sc, _ := client.New(srv.URL+"/api", client.WithHTTPClient(srv.Client()), client.WithSession(session))
		// The benchmarks call as fast as the service answers, past the default rate limit.
		if loaded.err = sc.Call(ctx, "set-config", map[string]any{"values": map[string]any{"retention": "365d", "rate_limit": 0}}, nil); loaded.err != nil {
			return
		}
		// A kept directory holds the keys of earlier runs, up to the most a user may hold.
		var keys []struct{ Name string }
		if loaded.err = sc.Call(ctx, "list-api-keys", nil, &keys); loaded.err != nil {
			return
		}
		for _, k := range keys {
			if strings.HasPrefix(k.Name, "bench ") {
				if loaded.err = sc.Call(ctx, "revoke-api-key", map[string]string{"name": k.Name}, nil); loaded.err != nil {
					return
				}
			}
		}
		if loaded.err = sc.Call(ctx, "create-api-key", map[string]string{"name": fmt.Sprint("bench ", time.Now().UnixNano())}, &key); loaded.err != nil {
			return
		}
		loaded.c, _ = client.New(srv.URL+"/api", client.WithHTTPClient(srv.Client()), client.WithAPIKey(key))
		loaded.srv, loaded.key, loaded.dir = srv, key, dir
		var done benchLoad
		if raw, err := os.ReadFile(filepath.Join(dir, benchLoadFile)); kept && err == nil {
			if loaded.err = json.Unmarshal(raw, &done); loaded.err == nil {
				loaded.n, loaded.rate = done.Records, float64(done.Records)/done.Seconds
			}
			return
		}
		start := time.Now()
		if loaded.err = loadRecords(ctx, a, benchRecords(), benchDays()); loaded.err != nil {
			return
		}
		done = benchLoad{Records: benchRecords(), Seconds: time.Since(start).Seconds()}
		loaded.n, loaded.rate = done.Records, float64(done.Records)/done.Seconds
		if kept {
			raw, _ := json.Marshal(done)
			loaded.err = os.WriteFile(filepath.Join(dir, benchLoadFile), raw, 0o600)
		}
	})
	if loaded.err != nil {
		b.Fatal(loaded.err)
	}
	return loaded.c, loaded.n
}

// genRate is the demo generator's Rate that makes want records over days days: its default
// gives about 300,000 records a working day (fewer at a weekend).
func genRate(want, days int) float64 { return 6 * float64(want) / 300_000 / float64(days) }

// loadRecords ingests want demo records spread over the last days days into a's store, in
// batches of 100,000, hour by hour, and then has its background rollups catch up (the load's
// time includes it), so that the queries measured read them.
//
// Each record gets its context as the service would give it (zones of the demo network, and
// per server an AS and a country, set by benchGeo as a GeoIP file would for public addresses:
// the demo's are documentation ranges, which GeoIP lookups answer null), so that the queries
// by zone, AS and country read as many groups as on a real network.
func loadRecords(ctx context.Context, a *app.App, want, days int) error {
	end := time.Now().Truncate(time.Minute)
	n := 0
	if err := a.Resolver().Set(benchZones(), nil); err != nil {
		return err
	}
	if !benchContext() {
		defer a.Resolver().Set(nil, nil)
	}
	// The generator's default rate gives about 300,000 records a working day (fewer at a
	// weekend); scale it to want, and add periods of other seeds until there are enough.
	for seed := uint64(1); n < want; seed++ {
		g := demo.New(end.Add(-time.Duration(days)*24*time.Hour), demo.Options{Seed: seed, Rate: genRate(want, days), Plain: true})
		for h := 24*days - 1; h >= 0 && n < want; h-- {
			recs := g.Until(end.Add(-time.Duration(h) * time.Hour))
			if benchCapture() {
				withCapture(recs)
			}
			for len(recs) > 0 && n < want {
				k := min(len(recs), 100_000, want-n)
				a.ResolveContext(recs[:k])
				benchGeo(recs[:k])
				if err := a.Records().Ingest(ctx, recs[:k]); err != nil {
					return err
				}
				n += k
				recs = recs[k:]
			}
		}
	}
	if d, ok := a.Records().(interface{ CatchUp(context.Context) error }); ok {
		return d.CatchUp(ctx)
	}
	return nil
}

// benchZones are zones of the demo network: its offices, Wi-Fi and data centre.
func benchZones() []netctx.Zone {
	p := netip.MustParsePrefix
	return []netctx.Zone{
		{Name: "HQ/Office", Networks: []netip.Prefix{p("10.0.1.0/24")}},
		{Name: "HQ/WiFi", Networks: []netip.Prefix{p("192.168.20.0/24"), p("fd00:20::/64")}},
		{Name: "DC/Servers", Networks: []netip.Prefix{p("10.0.0.0/24"), p("fd00::/64")}},
		{Name: "DC/Apps", Networks: []netip.Prefix{p("10.0.2.0/24")}},
	}
}

// benchGeo gives each public server of recs an AS and a country, as a GeoIP file would: one of
// 40 ASes and 12 countries chosen by the address.
func benchGeo(recs []records.Record) {
	for i := range recs {
		s := &recs[i].Server
		if s.Zone != "" {
			continue
		}
		b := s.IP.As16()
		h := uint32(b[15]) + 7*uint32(b[14]) + 31*uint32(b[13])
		s.ASN, s.ASName = 64500+h%40, fmt.Sprint("BENCH-AS-", h%40)
		s.Country = []string{"US", "FR", "DE", "GB", "NL", "JP", "BR", "IN", "CA", "AU", "SE", "IT"}[h%12]
	}
}

// BenchmarkQuery answers the queries of the issue through the API (HTTPS, JSON, auth) over
// benchRecords() records, and reports the process's peak resident memory.
func BenchmarkQuery(b *testing.B) {
	c, n := loadService(b)
	queries := []struct{ name, expr string }{
		{"traffic_by_client_ip", "traffic BY client.ip SINCE @now-86400"},
		{"traffic_by_time60_24h", "traffic BY time(60) SINCE @now-86400"},
		// Issue 25: by zone, AS and country within 1.5x of by application (rollups).
		{"traffic_by_application_24h", "traffic BY application SINCE @now-86400"},
		{"traffic_by_server_asn_24h", "traffic BY server.asn SINCE @now-86400"},
		{"traffic_by_client_zone_24h", "traffic BY client.zone SINCE @now-86400"},
		{"traffic_by_server_country_24h", "traffic BY server.country SINCE @now-86400"},
		{"dashboard_3_statements", "traffic BY application TOP 10 SINCE @now-86400; " +
			"records, packets BY server.port TOP 10 SINCE @now-86400; client.traffic / traffic BY time(300) SINCE @now-86400"},
	}
	for _, q := range queries {
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				var res []json.RawMessage
				if err := c.Call(context.Background(), "query", map[string]any{"expr": q.expr}, &res); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n), "records")
			b.ReportMetric(peakRSS(), "peak-RSS-MiB")
		})
	}
}

// BenchmarkIngest sends batches of 10,000 demo records through the API's ingest function, as a
// collector would: each request's JSON body is encoded once, before the clock starts, so that the
// figure is the server's. The service resolves each record's context (zones, AS and country of
// public servers; benchContext): FNAPI_BENCH_CONTEXT=none measures it without.
func BenchmarkIngest(b *testing.B) {
	payload := ingestPayload(b)
	start, cpu := time.Now(), testenv.CPUTime()
	for b.Loop() {
		if err := postIngest(payload); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*10_000)/time.Since(start).Seconds(), "records/s")
	b.ReportMetric(float64((testenv.CPUTime()-cpu).Nanoseconds())/float64(b.N*10_000), "cpu-ns/record")
	b.ReportMetric(peakRSS(), "peak-RSS-MiB")
	if benchContext() {
		// What was measured resolved the context: the records read back with it.
		var res []json.RawMessage
		if err := loaded.c.Call(context.Background(), "query", map[string]any{"expr": "records BY server.asn, client.zone SINCE @now-7200"}, &res); err != nil {
			b.Fatal(err)
		}
		if s := fmt.Sprintf("%s", res); !strings.Contains(s, `"name":"BENCH-NET-`) || !strings.Contains(s, `"HQ/Office"`) {
			b.Fatalf("the ingested records read without their context: %.300s", s)
		}
	}
}

// BenchmarkIngestConcurrent is BenchmarkIngest from four clients at once, as from several
// collectors: their batches share commits (group commit).
func BenchmarkIngestConcurrent(b *testing.B) {
	payload := ingestPayload(b)
	b.SetParallelism(2)
	start, cpu := time.Now(), testenv.CPUTime()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := postIngest(payload); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N*10_000)/time.Since(start).Seconds(), "records/s")
	b.ReportMetric(float64((testenv.CPUTime()-cpu).Nanoseconds())/float64(b.N*10_000), "cpu-ns/record")
	b.ReportMetric(peakRSS(), "peak-RSS-MiB")
}

// ingestPayload loads the service and returns the JSON body of an ingest of 10,000 demo records.
func ingestPayload(b *testing.B) []byte {
	loadService(b)
	g := demo.New(time.Now().Add(-time.Hour), demo.Options{Seed: 2, Rate: 200, Plain: true})
	recs := g.Until(time.Now())
	for len(recs) < 10_000 {
		recs = append(recs, recs...)
	}
	body := make([]json.RawMessage, 10_000)
	for i := range body {
		body[i], _ = json.Marshal(recs[i])
	}
	payload, err := json.Marshal(map[string]any{"records": body})
	if err != nil {
		b.Fatal(err)
	}
	return payload
}

// postIngest sends payload to the service's ingest function; an error unless it is stored.
func postIngest(payload []byte) error {
	req, _ := http.NewRequest("POST", loaded.srv.URL+"/api/ingest", bytes.NewReader(payload))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Svc-Authorization", loaded.key)
	res, err := loaded.srv.Client().Do(req)
	if err != nil {
		return err
	}
	answer, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("ingest: %d %s", res.StatusCode, answer)
	}
	return nil
}

// peakRSS reads the process's peak resident memory (VmHWM) in MiB; 0 where /proc is missing.
func peakRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}
