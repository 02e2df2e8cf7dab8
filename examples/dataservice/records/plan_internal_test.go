package records

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestCompileSharesOnePassPerWhere checks how queries are planned: in DuckDB those of one Where
// and one chain of rollups in one SELECT with grouping sets over the records and over each
// rollup; in ClickHouse one SELECT per key set; queries of another Where in parts of their own.
func TestCompileSharesOnePassPerWhere(t *testing.T) {
	t.Parallel()
	tcp := Compare{Column: ColProtocol, Op: Eq, Value: Value{Lo: 6}}
	qs := []*Query{
		{Sums: []Sum{SumClientBytes}},
		{Groups: []Group{{Column: ColApplication}}, Sums: []Sum{SumServerBytes}, Limit: 11},
		{Groups: []Group{{Bucket: 60}}, Sums: []Sum{SumRecords}},
		{Groups: []Group{{Column: ColServerIP}, {Column: ColApplication}}, Sums: []Sum{SumRecords, SumClientBytes}},
		{Groups: []Group{{Column: ColApplication}}, Sums: []Sum{SumRecords}, Where: tcp},
		{Groups: []Group{{Column: ColClientIP}}, Sums: []Sum{SumServerPackets}},
	}
	duck := Compile(duckDialect, "records", duckRollups, qs)
	if len(duck.parts) != 4 {
		t.Fatalf("DuckDB plan has %d parts, want 4 (three chains of rollups for one Where, one for the other)", len(duck.parts))
	}
	for i, want := range []struct {
		sets, sums int
		levels     []string
	}{
		{2, 2, []string{"records_minute", "records_hour"}},
		{1, 1, []string{"records_minute"}},
		{2, 3, []string{"records_10min_hosts", "records_hour_hosts"}},
		{1, 1, []string{"records_minute", "records_hour"}},
	} {
		p := duck.parts[i]
		if len(p.sets) != want.sets || p.sums != want.sums || len(p.widths) != len(want.levels) {
			t.Errorf("part %d: %d sets, %d sums, %d rollups; want %+v", i, len(p.sets), p.sums, len(p.widths), want)
			continue
		}
		if shared := strings.Contains(p.query, "GROUPING SETS"); shared != (want.sets > 1) || len(p.setOf) != len(p.sets) && shared {
			t.Errorf("part %d, %d sets: %s", i, want.sets, p.query)
		}
		if want.sets > 1 && strings.Contains(p.query, "LIMIT") {
			t.Errorf("part %d limits the rows of every set: %s", i, p.query)
		}
		// Two branches over the records and each rollup, one over the coarsest.
		for j, table := range append([]string{"records"}, want.levels...) {
			n := 2
			if j == len(want.levels) {
				n = 1
			}
			if c := strings.Count(p.query, " FROM "+table+" "); c != n {
				t.Errorf("part %d reads %s %d times, want %d: %s", i, table, c, n, p.query)
			}
		}
	}
	if !strings.Contains(duck.parts[3].query, "protocol") {
		t.Errorf("the tcp part: %s", duck.parts[3].query)
	}
	ch := Compile(chDialect, "records", nil, qs)
	if len(ch.parts) != 6 {
		t.Fatalf("ClickHouse plan has %d parts, want 6 (one per key set and Where)", len(ch.parts))
	}
	for _, p := range ch.parts {
		if strings.Contains(p.query, "GROUPING") || len(p.branches) != 1 {
			t.Errorf("ClickHouse part uses grouping sets or a rollup: %s", p.query)
		}
	}
	if !strings.Contains(ch.parts[1].query, "LIMIT 11") {
		t.Errorf("a query alone in its set keeps its limit: %s", ch.parts[1].query)
	}
}

// TestSplitWidthsTilesThePeriod checks the pieces a period is read in: they tile it in order,
// each rollup's pieces are whole buckets of its width before its mark (random, or none), and
// each source has no more pieces than a plan has branches for it (bind never runs out).
func TestSplitWidthsTilesThePeriod(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	q := &Query{Groups: []Group{{Column: ColApplication}}, Sums: []Sum{SumRecords}}
	for _, chain := range [][]*Rollup{{&duckRollups[0]}, {&duckRollups[0], &duckRollups[1]}, {&duckRollups[2]}} {
		p := compileSets(duckDialect, "records", chain, []*Query{q}, [][]int{{0}})
		for range 2000 {
			from := 1_700_000_000 - rng.Int64N(10*86400)
			to := from + rng.Int64N([]int64{100, 4000, 20 * 86400}[rng.IntN(3)])
			var marks []int64
			if rng.IntN(4) > 0 {
				for _, w := range p.widths {
					marks = append(marks, []int64{math.MaxInt64, 0, FloorTo(from+rng.Int64N(to-from+1), w)}[rng.IntN(3)])
				}
			}
			at := from
			splitWidths(p.widths, marks, from, to, func(source int, lo, hi int64) {
				if lo != at || hi <= lo || source > 0 && (lo%p.widths[source-1] != 0 || hi%p.widths[source-1] != 0 || marks != nil && hi > marks[source-1]) {
					t.Fatalf("widths %v, [%d, %d): piece [%d, %d) of source %d after %d", p.widths, from, to, lo, hi, source, at)
				}
				at = hi
			})
			if at != max(from, to) && from < to {
				t.Fatalf("widths %v, [%d, %d): pieces end at %d", p.widths, from, to, at)
			}
			if _, err := p.Bind(from, to, marks); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestLiteralTimes checks what DuckDB is sent: the bounds of every branch written as integers,
// every value of the query's Where still a parameter, in order, whatever it holds, and the
// branches whose range is empty left out with their values.
func TestLiteralTimes(t *testing.T) {
	t.Parallel()
	q := &Query{Groups: []Group{{Column: ColApplication}}, Sums: []Sum{SumRecords},
		Where: In{Column: ColApplication, Values: []Value{{Str: "a?b"}, {Str: "?"}}}}
	p := compileSets(duckDialect, "records", Chain(duckRollups, q), []*Query{q}, [][]int{{0}})
	const from, to = int64(-7), int64(1_700_003_661)
	args, err := p.Bind(from, to, []int64{math.MaxInt64, math.MaxInt64})
	if err != nil {
		t.Fatal(err)
	}
	sql, rest := p.LiteralTimes(args)
	if want := []any{"a?b", "?", "a?b", "?", "a?b", "?", "a?b", "?"}; !reflect.DeepEqual(rest, want) {
		t.Errorf("parameters %q, want the Where's values of each of the 4 branches not empty %q", rest, want)
	}
	if n := strings.Count(sql, "?"); n != len(rest) {
		t.Errorf("%d parameters in the SQL, %d values: %s", n, len(rest), sql)
	}
	// Seconds before the first minute, whole hours, the minutes and seconds of the cut hour.
	for _, bound := range []string{"time >= -7 AND time < 0 ", "time >= 0 AND time < 1700002800 ", "time >= 1700002800 AND time < 1700003640 ", "time >= 1700003640 AND time < 1700003661 "} {
		if !strings.Contains(sql, bound) {
			t.Errorf("no %q in %s", bound, sql)
		}
	}
}

// TestLiteralTimesEmpty checks the unions whose first branches, or all, are empty: what is
// left is a union of the others (the first branch when all are empty), with their values.
func TestLiteralTimesEmpty(t *testing.T) {
	t.Parallel()
	q := &Query{Groups: []Group{{Column: ColApplication}}, Sums: []Sum{SumRecords},
		Where: In{Column: ColApplication, Values: []Value{{Str: "x"}}}}
	p := compileSets(duckDialect, "records", Chain(duckRollups, q), []*Query{q}, [][]int{{0}})
	for _, c := range []struct {
		from, to int64
		selects  int
		contains string
	}{
		{0, 0, 1, "FROM (SELECT application, CAST(1 AS UBIGINT) AS records FROM records WHERE time >= 0 AND time < 0 AND "},
		{3600, 7200, 1, "FROM (SELECT application, records FROM records_hour WHERE time >= 3600 AND time < 7200 AND "},
		{3600, 7260, 2, "FROM (SELECT application, records FROM records_minute WHERE time >= 7200 AND time < 7260 AND "},
	} {
		args, err := p.Bind(c.from, c.to, []int64{math.MaxInt64, math.MaxInt64})
		if err != nil {
			t.Fatal(err)
		}
		sql, rest := p.LiteralTimes(args)
		if n := strings.Count(sql, "SELECT ") - 1; n != c.selects || len(rest) != n || strings.Count(sql, "?") != n {
			t.Errorf("[%d, %d): %d branches, %d values; want %d each: %s", c.from, c.to, n, len(rest), c.selects, sql)
		}
		if !strings.Contains(sql, c.contains) || strings.Contains(sql, "( UNION") || strings.Contains(sql, "UNION ALL )") {
			t.Errorf("[%d, %d): %s, want it to hold %q", c.from, c.to, sql, c.contains)
		}
	}
}

// TestOpenEnd checks the end a read past the newest record uses: raised to the coarsest
// rollup of its plan, so the statement reads no cut bucket at the newest end, and kept for a
// plan without rollups or one so late it would overflow.
func TestOpenEnd(t *testing.T) {
	t.Parallel()
	q := &Query{Groups: []Group{{Column: ColApplication}}, Sums: []Sum{SumRecords}}
	p := compileSets(duckDialect, "records", Chain(duckRollups, q), []*Query{q}, [][]int{{0}})
	if len(p.widths) != 2 || p.widths[1] != 3600 {
		t.Fatalf("widths %v, want the minute's and the hour's", p.widths)
	}
	for _, c := range []struct{ to, want int64 }{
		{1_700_003_661, 1_700_006_400}, {1_700_006_400, 1_700_006_400}, {-7, 0},
		{math.MaxInt64 - 100, math.MaxInt64 - 100},
	} {
		if got := p.OpenEnd(c.to); got != c.want {
			t.Errorf("OpenEnd(%d) = %d, want %d", c.to, got, c.want)
		}
	}
	const from = int64(1_700_000_007)
	args, err := p.Bind(from, p.OpenEnd(1_700_003_661), []int64{math.MaxInt64, math.MaxInt64})
	if err != nil {
		t.Fatal(err)
	}
	sql, _ := p.LiteralTimes(args)
	if n := strings.Count(sql, "SELECT ") - 1; n != 3 {
		t.Errorf("%d branches, want 3 (none at the newest end): %s", n, sql)
	}
	if !strings.Contains(sql, "time >= 1700002800 AND time < 1700006400)") {
		t.Errorf("no whole newest hour in %s", sql)
	}
	raw := compileSets(duckDialect, "records", nil, []*Query{q}, [][]int{{0}})
	if got := raw.OpenEnd(1_700_003_661); got != 1_700_003_661 {
		t.Errorf("OpenEnd without rollups = %d, want the end kept", got)
	}
}

// TestBindSkipsARollupBehind checks that a read skips a rollup whose mark is behind a coarser
// one's (the rollup per 10 minutes new in an earlier file, catching up): the hourly one is then
// read up to its own mark, as before the finer one existed, rather than up to the finer mark.
func TestBindSkipsARollupBehind(t *testing.T) {
	t.Parallel()
	q := &Query{Groups: []Group{{Column: ColClientIP}}, Sums: []Sum{SumRecords}}
	p := compileSets(duckDialect, "records", Chain(duckRollups, q), []*Query{q}, [][]int{{0}})
	if len(p.widths) != 2 || p.widths[0] != 600 || p.widths[1] != 3600 {
		t.Fatalf("widths %v, want the rollups per 10 minutes and per hour with addresses", p.widths)
	}
	const from, to = int64(1_700_000_000), int64(1_700_100_000)
	ranges := func(marks []int64) map[int][][2]int64 {
		t.Helper()
		args, err := p.Bind(from, to, marks)
		if err != nil {
			t.Fatal(err)
		}
		out := map[int][][2]int64{}
		for _, br := range p.branches {
			if lo, hi := args[br.arg].(int64), args[br.arg+1].(int64); hi > lo {
				out[br.source] = append(out[br.source], [2]int64{lo, hi})
			}
		}
		return out
	}
	const hourMark = int64(1_700_082_000)
	behind := ranges([]int64{0, hourMark})
	if len(behind[1]) != 0 || !reflect.DeepEqual(behind[2], [][2]int64{{1_700_002_800, hourMark}}) {
		t.Errorf("10-minute mark behind: ranges %v; want none per 10 minutes, the hours up to %d", behind, hourMark)
	}
	caughtUp := ranges([]int64{1_700_085_000, hourMark})
	if !reflect.DeepEqual(caughtUp[1], [][2]int64{{1_700_000_400, 1_700_002_800}, {hourMark, 1_700_085_000}}) || !reflect.DeepEqual(caughtUp[2], [][2]int64{{1_700_002_800, hourMark}}) {
		t.Errorf("10-minute mark ahead: ranges %v", caughtUp)
	}
}

// TestCaptureSumsReadTheRecords checks the planner's fallback for the capture probe's sums,
// which no rollup keeps: a query of one reads the records alone, and so does a query of the
// same keys and Where that shares its pass, while a query of rollup sums alone still reads
// the rollups.
func TestCaptureSumsReadTheRecords(t *testing.T) {
	t.Parallel()
	byApp := []Group{{Column: ColApplication}}
	if c := Chain(duckRollups, &Query{Groups: byApp, Sums: []Sum{SumRecords, SumSRT, SumSRTSamples}}); len(c) != 0 {
		t.Errorf("a query of srt reads rollup %s, which lacks its sums", c[0].Table)
	}
	if c := Chain(duckRollups, &Query{Groups: byApp, Sums: []Sum{SumRecords, SumClientBytes}}); len(c) == 0 {
		t.Error("a query of rollup sums reads no rollup")
	}
	qs := []*Query{
		{Groups: byApp, Sums: []Sum{SumClientBytes}},
		{Groups: byApp, Sums: []Sum{SumServerRTT, SumServerRTTSamples, SumResets}},
	}
	for _, d := range []*Dialect{duckDialect, chDialect} {
		p := Compile(d, "records", duckRollups, qs)
		if len(p.parts) != 0 || strings.Contains(p.query, "records_minute") || strings.Contains(p.query, "records_hour") ||
			!strings.Contains(p.query, "server_rtt_us") || !strings.Contains(p.query, "resets") {
			t.Errorf("plan of a rollup query and a capture query of the same keys: %d parts, %s", len(p.parts), p.query)
		}
	}
}

// TestChainForHists checks that a rollup ForHists is read only by the queries that merge a
// histogram: a day's traffic or average response time by application reads per minute and per
// hour, its percentile per minute, 10 minutes, hour and 6 hours, and one by address the rollups
// with addresses.
func TestChainForHists(t *testing.T) {
	t.Parallel()
	keys := []Column{ColProtocol, ColApplication, ColServerPort}
	var rs []Rollup
	for _, r := range []Rollup{
		{Table: "records_minute", Width: 60, Keys: keys},
		{Table: "records_hour", Width: 3600, Keys: keys},
		{Table: "records_hour_hosts", Width: 3600, Keys: duckHostKeys, Background: true},
		{Table: "records_10min", Width: 600, Keys: keys, ForHists: true},
		{Table: "records_10min_hosts", Width: 600, Keys: duckHostKeys, Background: true},
		{Table: "records_6hour", Width: 6 * 3600, Keys: keys, ForHists: true},
	} {
		r.Measures = true
		rs = append(rs, r)
	}
	byApp, byServer, srt := []Group{{Column: ColApplication}}, []Group{{Column: ColServerIP}}, []Column{ColSRTHist}
	for _, c := range []struct {
		q    *Query
		want []string
	}{
		{&Query{Groups: byApp, Sums: []Sum{SumClientBytes}}, []string{"records_minute", "records_hour"}},
		{&Query{Groups: byApp, Sums: []Sum{SumSRT, SumSRTSamples}}, []string{"records_minute", "records_hour"}},
		{&Query{Groups: byApp, Hists: srt}, []string{"records_minute", "records_10min", "records_hour", "records_6hour"}},
		{&Query{Groups: []Group{{Bucket: 3600}}, Hists: srt}, []string{"records_minute", "records_10min", "records_hour"}},
		{&Query{Groups: byServer, Hists: srt}, []string{"records_10min_hosts", "records_hour_hosts"}},
		{&Query{Groups: byServer, Sums: []Sum{SumRecords}}, []string{"records_10min_hosts", "records_hour_hosts"}},
	} {
		var got []string
		for _, r := range Chain(rs, c.q) {
			got = append(got, r.Table)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%+v reads %v, want %v", c.q, got, c.want)
		}
	}
}
