package demo_test

import (
	"cmp"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/demo"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// testNow is a Wednesday noon.
var testNow = time.Date(2025, 3, 12, 12, 0, 0, 0, time.UTC)

// generate returns the records of the span before testNow, asked for every step.
func generate(seed uint64, span, step time.Duration) []records.Record {
	start := testNow.Add(-span)
	g := demo.New(start, demo.Options{Seed: seed})
	var out []records.Record
	for t := start.Add(step); !t.After(testNow); t = t.Add(step) {
		out = append(out, g.Until(t)...)
	}
	return out
}

func TestGeneratorDay(t *testing.T) {
	t.Parallel()
	recs := generate(1, 24*time.Hour, time.Minute)
	if n := len(recs); n < 200_000 || n > 500_000 {
		t.Errorf("%d records in a day, want 200,000..500,000", n)
	}
	apps, protos, families := map[string]int{}, map[string]int{}, map[bool]int{}
	var hours [24]int
	var down, up uint64
	for i, r := range recs {
		if err := r.Validate(testNow); err != nil {
			t.Fatalf("record %d %+v: %v", i, r, err)
		}
		if r.Time < testNow.Add(-24*time.Hour).Unix() || r.Time >= testNow.Unix() {
			t.Fatalf("record %d at %d, outside the last 24 hours", i, r.Time)
		}
		apps[r.Application]++
		protos[records.ProtocolName(r.Protocol)]++
		families[r.Client.IP.Is4()]++
		hours[time.Unix(r.Time, 0).UTC().Hour()]++
		if r.Application == "https" {
			down, up = down+r.Server.Bytes, up+r.Client.Bytes
		}
	}
	for _, app := range []string{"http", "https", "dns", "ssh", "ntp", "icmp", "smtp", "quic", "postgresql", records.Unknown} {
		if apps[app] == 0 {
			t.Errorf("no %s records; applications: %v", app, apps)
		}
	}
	for _, p := range []string{"tcp", "udp", "icmp", "icmpv6"} {
		if protos[p] == 0 {
			t.Errorf("no %s records; protocols: %v", p, protos)
		}
	}
	if families[true] == 0 || families[false] == 0 {
		t.Errorf("clients by IPv4: %v, want both IPv4 and IPv6", families)
	}
	if quiet, busy := slices.Min(hours[:]), slices.Max(hours[:]); quiet == 0 || busy < 3*quiet {
		t.Errorf("records by hour %v: want traffic every hour, the busiest at least 3 times the quietest", hours)
	}
	if hours[14] < 3*hours[3] {
		t.Errorf("14:00 has %d records, 03:00 %d: want the afternoon busier than the night", hours[14], hours[3])
	}
	if down < 5*up {
		t.Errorf("https servers sent %d bytes, clients %d: want downloads much bigger", down, up)
	}
}

func TestGeneratorDeterministic(t *testing.T) {
	t.Parallel()
	a, b, c := generate(7, 6*time.Hour, time.Minute), generate(7, 6*time.Hour, time.Minute), generate(8, 6*time.Hour, time.Minute)
	if !reflect.DeepEqual(a, b) {
		t.Error("the same seed gave different records")
	}
	if reflect.DeepEqual(a, c) {
		t.Error("different seeds gave the same records")
	}
}

// TestGeneratorStepIndependent checks that asking often (live) or seldom (backfill) gives the
// same records: each conversation's minute slices come out once, whole.
func TestGeneratorStepIndependent(t *testing.T) {
	t.Parallel()
	sorted := func(rs []records.Record) []records.Record {
		slices.SortFunc(rs, func(a, b records.Record) int {
			return cmp.Or(cmp.Compare(a.Time, b.Time), a.Client.IP.Compare(b.Client.IP),
				cmp.Compare(a.Client.Port, b.Client.Port), a.Server.IP.Compare(b.Server.IP),
				cmp.Compare(a.Server.Port, b.Server.Port), cmp.Compare(a.Protocol, b.Protocol),
				cmp.Compare(a.Client.Bytes, b.Client.Bytes), cmp.Compare(a.Server.Bytes, b.Server.Bytes),
				cmp.Compare(a.Layer, b.Layer), cmp.Compare(a.SRT.Sum, b.SRT.Sum), cmp.Compare(a.DTT.Sum, b.DTT.Sum),
				cmp.Compare(a.CT.Sum, b.CT.Sum))
		})
		return rs
	}
	const span = 6 * time.Hour
	minutes := sorted(generate(3, span, time.Minute))
	seconds := sorted(generate(3, span, 5*time.Second))
	hours := sorted(generate(3, span, time.Hour))
	if !reflect.DeepEqual(minutes, seconds) || !reflect.DeepEqual(minutes, hours) {
		t.Errorf("records by minute (%d), by 5 s (%d) and by hour (%d) differ", len(minutes), len(seconds), len(hours))
	}
}

func TestGeneratorUntilPast(t *testing.T) {
	t.Parallel()
	g := demo.New(testNow, demo.Options{})
	if recs := g.Until(testNow.Add(10 * time.Minute)); len(recs) == 0 {
		t.Fatal("no records in 10 minutes")
	}
	for _, t0 := range []time.Time{testNow.Add(10 * time.Minute), testNow} {
		if recs := g.Until(t0); len(recs) != 0 {
			t.Errorf("Until(%s) again gave %d records", t0, len(recs))
		}
	}
}

// BenchmarkGeneratorDay measures generating a day of traffic, what -demo's backfill costs
// before writing.
func BenchmarkGeneratorDay(b *testing.B) {
	n := 0
	for b.Loop() {
		n = len(generate(1, 24*time.Hour, time.Minute))
	}
	b.ReportMetric(float64(n), "records/day")
}
