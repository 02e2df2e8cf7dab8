package clickhouse

import (
	"context"
	"math/rand/v2"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/records/recordstest"

	"github.com/ClickHouse/clickhouse-go/v2"
	chdriver "github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// chTestStart is the first second of the records the rollup tests make: they span three days.
const chTestStart = int64(19_000)*86400 + 43_210

// chTestRecords makes n records over three days from chTestStart, of a few protocols,
// applications and ports, most with the capture probe's measures: times of a few samples, half
// of them with histograms, the others averaged.
func chTestRecords(rng *rand.Rand, n int) []records.Record {
	out := make([]records.Record, n)
	for i := range out {
		r := &out[i]
		*r = records.Record{Time: chTestStart + rng.Int64N(3*86400), Protocol: []uint8{records.TCP, records.UDP}[rng.IntN(2)],
			Application: []string{"dns", "https", "ssh"}[rng.IntN(3)],
			Client:      records.Endpoint{IP: netip.AddrFrom4([4]byte{10, 0, 0, byte(rng.IntN(4))}), Bytes: rng.Uint64N(1000), Packets: 1},
			Server:      records.Endpoint{IP: netip.MustParseAddr("2001:db8::1"), Port: uint16(rng.IntN(3)), Bytes: rng.Uint64N(5000), Packets: 2}}
		for _, t := range []*records.Timing{&r.Client.RTT, &r.Server.RTT, &r.CT, &r.SRT, &r.DTT} {
			hist := rng.IntN(2) == 0
			for range rng.IntN(4) {
				us := 1 + rng.Uint64N(300_000)
				t.Sum, t.Samples = t.Sum+us, t.Samples+1
				if hist {
					t.Hist.Add(float64(us) / 1e6)
				}
			}
		}
		r.Client.Retrans, r.Server.Retrans, r.Resets = rng.Uint64N(3), rng.Uint64N(3), rng.Uint64N(2)
		r.Client.ZeroWindows, r.Server.ZeroWindows = rng.Uint64N(2), rng.Uint64N(2)
	}
	return out
}

// chSame checks that s answers q, traffic, every measure and every histogram, from the rollup
// as from the records, over periods cut at random seconds.
func chSame(t *testing.T, s *Store, rng *rand.Rand) {
	t.Helper()
	q := &records.Query{Groups: []records.Group{{Bucket: 3600}, {Column: records.ColApplication}, {Column: records.ColServerPort}},
		Sums:  append([]records.Sum{records.SumClientBytes, records.SumServerPackets, records.SumRecords}, recordstest.CaptureSums...),
		Hists: recordstest.HistColumns}
	for range 5 {
		from := chTestStart - 100 + rng.Int64N(2*86400)
		to := from + rng.Int64N(chTestStart+3*86400+100-from)
		recordsOnly := func(qs ...*records.Query) *records.Plan { return records.Compile(chDialect, s.table, nil, qs) }
		raw, rolled := recordstest.SumsBy(t, s, recordsOnly, from, to, true, q), recordstest.SumsBy(t, s, recordsOnly, from, to, false, q)
		if !reflect.DeepEqual(raw, rolled) {
			t.Fatalf("[%d, %d): from the rollup %v, from the records %v", from, to, rolled, raw)
		}
	}
}

// RawClickHouse connects to the server of url with the driver alone, to do what the store never
// does; the connection closes with the test.
func RawClickHouse(t testing.TB, url string) chdriver.Conn {
	t.Helper()
	opts, err := clickhouse.ParseDSN(url)
	if err != nil {
		t.Fatal(err)
	}
	c, err := clickhouse.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// SetVersionTest empties the server's records_version and records schema version v there, as
// the version that made its tables left it: the migration tests remake tables of an earlier
// version, then open the store over them.
func SetVersionTest(t testing.TB, c chdriver.Conn, v uint32) {
	t.Helper()
	ctx := context.Background()
	for _, stmt := range []string{"DROP TABLE records_version", "CREATE TABLE records_version (version UInt32) ENGINE = TinyLog"} {
		if err := c.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	if err := writeVersion(ctx, c, v); err != nil {
		t.Fatal(err)
	}
}

// OpenClickHouseTest opens the store on the server of url (and cluster), closed with the test;
// the external tests call it too.
func OpenClickHouseTest(t *testing.T, url, cluster string) *Store {
	t.Helper()
	s, err := Open(context.Background(), url, cluster)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestClickHouseReadsTheRollup checks that the statements the rollup answers read their whole
// minutes from it (a row written into the rollup alone shows in their answer, in none other),
// and only those.
func TestClickHouseReadsTheRollup(t *testing.T) {
	srv := testenv.ClickHouse(t)
	s := OpenClickHouseTest(t, srv.URL, "")
	ctx := context.Background()
	if err := s.Ingest(ctx, chTestRecords(rand.New(rand.NewPCG(1, 2)), 1000)); err != nil {
		t.Fatal(err)
	}
	raw := RawClickHouse(t, srv.URL)
	minute := &chRollups[0]
	// One rollup row of its own: application "only-in-the-rollup", server port 7, one record,
	// no histogram (its maps, not named, empty).
	set := map[string]any{"time": chTestStart + 120, "application": "only-in-the-rollup", "server_port": uint16(7)}
	zero := map[string]any{"Int64": int64(0), "UInt8": uint8(0), "UInt16": uint16(0), "UInt32": uint32(0), "UInt64": uint64(1), "String": "", chDialect.SumType: "1"}
	var names []string
	var row []any
	for _, c := range chRollupTable(minute) {
		if c.alias != "" || strings.HasPrefix(c.typ, "Array") {
			continue
		}
		v, ok := set[c.name]
		if !ok {
			v = zero[c.typ]
		}
		names, row = append(names, c.name), append(row, v)
	}
	b, err := raw.PrepareBatch(ctx, "INSERT INTO "+minute.Table+" ("+joinNames(names)+")")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Append(row...); err != nil {
		t.Fatal(err)
	}
	if err := b.Send(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		q    *records.Query
		seen bool
	}{
		{&records.Query{Groups: []records.Group{{Column: records.ColApplication}}, Sums: []records.Sum{records.SumRecords}}, true},
		{&records.Query{Groups: []records.Group{{Column: records.ColApplication}}, Sums: []records.Sum{records.SumSRT, records.SumSRTSamples}, Hists: []records.Column{records.ColSRTHist}}, true},
		{&records.Query{Groups: []records.Group{{Bucket: 60}, {Column: records.ColServerPort}}, Sums: []records.Sum{records.SumRecords}, Where: records.In{Column: records.ColApplication, Values: []records.Value{{Str: "only-in-the-rollup"}}}}, true},
		{&records.Query{Groups: []records.Group{{Bucket: 30}, {Column: records.ColApplication}}, Sums: []records.Sum{records.SumRecords}}, false},
		{&records.Query{Groups: []records.Group{{Column: records.ColApplication}, {Column: records.ColClientIP}}, Sums: []records.Sum{records.SumRecords}}, false},
		{&records.Query{Groups: []records.Group{{Column: records.ColApplication}}, Sums: []records.Sum{records.SumRecords}, Where: records.Compare{Column: records.ColClientPort, Op: records.Ge, Value: records.Value{}}}, false},
	} {
		var seen bool
		err := s.Read(ctx, s.Compile(tc.q), chTestStart, chTestStart+86400, func(r *records.Row) error {
			for _, k := range r.Keys {
				seen = seen || k.Str == "only-in-the-rollup" || k.Lo == 7
			}
			return nil
		})
		if err != nil || seen != tc.seen {
			t.Errorf("%+v: the rollup's own row seen %v (%v), want %v", tc.q, seen, err, tc.seen)
		}
	}
}

// TestClickHouseRollupOfAnEarlierSchema checks that records of schema version 1 (no rollup) get
// a rollup summed from them at open, on one server and on a two-shard cluster, with the
// version written as this one's, and that a rollup of other columns (other keys, or the UInt64
// sums of version 2) is made anew the same way.
func TestClickHouseRollupOfAnEarlierSchema(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name    string
		urls    []string
		cluster string
	}{
		{"single", []string{testenv.ClickHouse(t).URL}, ""},
		{"cluster", func() (urls []string) {
			for _, s := range testenv.ClickHouseCluster(t, 2) {
				urls = append(urls, s.URL)
			}
			return urls
		}(), testenv.ClickHouseClusterName},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := OpenClickHouseTest(t, tc.urls[0], tc.cluster)
			if err := s.Ingest(ctx, chTestRecords(rng, 5000)); err != nil {
				t.Fatal(err)
			}
			s.Close()
			for _, u := range tc.urls { // back to version 1: the records alone
				raw := RawClickHouse(t, u)
				var stmts []string
				for i := range chRollups {
					r := &chRollups[i]
					stmts = append(stmts, "DROP TABLE "+chView(r), "DROP TABLE "+r.Table, "DROP TABLE IF EXISTS "+chDist(r))
				}
				for _, stmt := range stmts {
					if err := raw.Exec(ctx, stmt); err != nil {
						t.Fatal(err)
					}
				}
				SetVersionTest(t, raw, 1)
			}
			s = OpenClickHouseTest(t, tc.urls[0], tc.cluster)
			chSame(t, s, rng)
			for _, u := range tc.urls {
				if v, err := schemaVersion(ctx, RawClickHouse(t, u)); err != nil || v != SchemaVersion {
					t.Errorf("schema version %d (%v) after the upgrade, want %d", v, err, SchemaVersion)
				}
			}
			s.Close()
			// A rollup of other columns (other keys) is dropped and made anew.
			raw := RawClickHouse(t, tc.urls[len(tc.urls)-1])
			minute := &chRollups[0]
			for _, stmt := range []string{"DROP TABLE " + chView(minute), "DROP TABLE " + minute.Table,
				"CREATE TABLE " + minute.Table + " (time Int64, records UInt64) ENGINE = SummingMergeTree ORDER BY time"} {
				if err := raw.Exec(ctx, stmt); err != nil {
					t.Fatal(err)
				}
			}
			s = OpenClickHouseTest(t, tc.urls[0], tc.cluster)
			chSame(t, s, rng)
			s.Close()
			// A rollup of schema version 2, its sums UInt64 (which wrapped around), is made anew
			// with Decimal sums.
			v2 := strings.ReplaceAll(chRollupDefs(minute), chDialect.SumType, "UInt64")
			for _, stmt := range []string{"DROP TABLE " + chView(minute), "DROP TABLE " + minute.Table,
				"CREATE TABLE " + minute.Table + " (" + v2 + ") ENGINE = " + chRollupEngine(minute)} {
				if err := raw.Exec(ctx, stmt); err != nil {
					t.Fatal(err)
				}
			}
			s = OpenClickHouseTest(t, tc.urls[0], tc.cluster)
			if have, _, err := tableShape(ctx, raw, minute.Table); err != nil || !reflect.DeepEqual(have, chRollupColumns(minute)) {
				t.Fatalf("the rollup of version 2 reopened has columns %v (%v), want %v", have, err, chRollupColumns(minute))
			}
			chSame(t, s, rng)
		})
	}
}

// TestClickHouseRollupRepair checks that days where the rollup lost rows are summed again: at
// open, and after an ingest whose rollup rows were not written (the view's table gone), before
// the next read, which until then reads the records alone.
func TestClickHouseRollupRepair(t *testing.T) {
	srv := testenv.ClickHouse(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 6))
	s := OpenClickHouseTest(t, srv.URL, "")
	if err := s.Ingest(ctx, chTestRecords(rng, 3000)); err != nil {
		t.Fatal(err)
	}
	raw := RawClickHouse(t, srv.URL)
	minute := chRollups[0].Table
	if err := raw.Exec(ctx, "ALTER TABLE "+minute+" DROP PARTITION "+dayString(chTestStart/86400+1)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = OpenClickHouseTest(t, srv.URL, "")
	chSame(t, s, rng)

	// With the view's table one whose partition key divides by zero, an ingest stores its
	// records, not their rollup rows, and fails.
	for _, stmt := range []string{"RENAME TABLE " + minute + " TO away",
		"CREATE TABLE " + minute + " AS away ENGINE = MergeTree PARTITION BY intDiv(time, time - time) ORDER BY time"} {
		if err := raw.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Ingest(ctx, chTestRecords(rng, 500)); err == nil {
		t.Fatal("an ingest whose view could not write succeeded")
	}
	// A repair that fails, here into the table that cannot be written, says so in the log.
	var logged []string
	s.logError = func(msg string, err error) { logged = append(logged, msg+": "+err.Error()) }
	if s.trusted(ctx, true) {
		t.Fatal("a repair into a table that cannot be written succeeded")
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "reads use the records alone") {
		t.Fatalf("a failed repair logged %q", logged)
	}
	for _, stmt := range []string{"DROP TABLE " + minute, "RENAME TABLE away TO " + minute} {
		if err := raw.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	s.rollup.tried = time.Now() // no repair yet: the records alone answer
	chSame(t, s, rng)
	if len(s.rollup.pending) == 0 {
		t.Fatal("no day left to repair after a failed ingest")
	}
	s.rollup.tried = time.Time{}
	chSame(t, s, rng)
	if len(s.rollup.pending) != 0 {
		t.Fatalf("days %v left to repair", s.rollup.pending)
	}
}
