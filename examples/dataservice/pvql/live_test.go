package pvql

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records/clickhouse"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// liveStatements are the statements every Live test follows besides random ones: the overview
// dashboard's, and TOP N ones whose groups enter and leave the top as bursts arrive and leave.
var liveStatements = []string{
	"traffic", "traffic BY time(60)", "records", "traffic BY application TOP 10",
	"traffic BY protocol", "traffic, packets, records BY server.ip, application TOP 10",
	`client.traffic / traffic AS "upload share", traffic BY client.ip TOP 10`,
	"traffic BY client.ip TOP 3 SINCE @now-600", "traffic BY time(600), client.ip TOP 2",
	"records BY server.port HAVING records > 20 SINCE @now-7200",
}

// touching is a Store reporting its writes to changes, as DuckDB reports its own.
type touching struct {
	records.Store
	changes *records.Changes
}

func (s touching) Ingest(ctx context.Context, recs []records.Record) error {
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, r := range recs {
		lo, hi = min(lo, r.Time), max(hi, r.Time)
	}
	s.changes.Touch(lo, hi+1)
	defer s.changes.Touch(lo, hi+1)
	return s.Store.Ingest(ctx, recs)
}

func (s touching) DeleteBefore(ctx context.Context, t int64) (int64, error) {
	s.changes.Touch(math.MinInt64, t)
	defer s.changes.Touch(math.MinInt64, t)
	return s.Store.DeleteBefore(ctx, t)
}

// TestLiveAnswersAsQuery is the differential test of followed queries: at every interval a
// Live's incremental answer equals a fresh Query at the same time, while records arrive in
// order, late (older times within the period), before the period's start and in bursts that
// put a new group in a TOP N, while the period moves by seconds, by more than a bucket and
// past all it held, and while retention cuts into it; on DuckDB and on ClickHouse.
func TestLiveAnswersAsQuery(t *testing.T) {
	t.Parallel()
	t.Run("duckdb", func(t *testing.T) {
		for seed := range uint64(3) {
			s := openDB(t, genRecords(seed, 3000, testNow-7300, testNow))
			checkLive(t, s, s.Changes(), seed)
		}
	})
	t.Run("clickhouse", func(t *testing.T) {
		url := testenv.ClickHouse(t).URL
		s, err := clickhouse.Open(context.Background(), url, "")
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		ts := touching{s, &records.Changes{}}
		load(t, ts, genRecords(9, 3000, testNow-7300, testNow))
		checkLive(t, ts, ts.changes, 9)
	})
}

// checkLive follows liveStatements and random ones on s through 80 intervals of writes and
// compares each answer with Query's.
func checkLive(t *testing.T, s records.Store, changes *records.Changes, seed uint64) {
	t.Helper()
	checkLiveOf(t, s, changes, seed, liveStatements, true)
}

// checkLiveOf is checkLive following base and random statements: without percentiles when
// incremental, as a Live answers one with percentiles afresh (and incremental checks it did not).
func checkLiveOf(t *testing.T, s records.Store, changes *records.Changes, seed uint64, base []string, incremental bool) {
	t.Helper()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, 77))
	engine := New(s)
	texts := append([]string(nil), base...)
	for len(texts) < len(base)+4 {
		text, _ := randomQuery(rng)
		if st, err := Parse(text); err != nil || incremental && hasQuantiles(st) {
			continue
		}
		texts = append(texts, text)
	}
	expr := strings.Join(texts, "; ")
	l, err := engine.Live(expr, changes)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	now := testNow
	for step := range 80 {
		prev := now
		switch rng.IntN(8) {
		case 0: // the same second
		case 1:
			now += 700 + rng.Int64N(4000) // past a bucket, at times past the whole period
		default:
			now += 1 + rng.Int64N(90)
		}
		var recs []rec
		switch rng.IntN(6) {
		case 0, 1: // in order
			recs = genRecords(seed<<8|uint64(step), 1+rng.IntN(200), prev, now+1)
		case 2: // late: older times within the period, in its recent buckets or anywhere
			from := []int64{now - 240, now - 3500}[rng.IntN(2)]
			recs = genRecords(seed<<8|uint64(step), 1+rng.IntN(200), from, now-60)
		case 3: // before the period's start
			recs = genRecords(seed<<8|uint64(step), 1+rng.IntN(50), now-9000, now-3600)
		case 4: // a burst from a new client, which tops the TOP N while in the period
			recs = genRecords(seed<<8|uint64(step), 3, now-rng.Int64N(900), now)
			for i := range recs {
				recs[i].cIP = netip.AddrFrom4([4]byte{172, 16, byte(step), byte(seed)})
				recs[i].cBytes = 1 << 40
			}
		}
		load(t, s, recs)
		if rng.IntN(15) == 0 {
			if _, err := s.DeleteBefore(ctx, now-3000+rng.Int64N(600)); err != nil {
				t.Fatal(err)
			}
		}
		at := time.Unix(now, 0)
		got, gerr := l.Answer(ctx, at, time.Hour)
		want, werr := engine.Query(ctx, expr, at, time.Hour)
		if fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Fatalf("step %d: error %v, want %v", step, gerr, werr)
		}
		for i := range want {
			if d := diffResult(got[i], want[i]); d != "" {
				t.Errorf("step %d (now %d), statement %d %q: %s", step, now, i+1, texts[i], d)
			}
		}
	}
	if incremental && (l.full || l.scans == nil) {
		t.Errorf("the Live answered afresh (full %v), not incrementally", l.full)
	}
}

// TestLivePercentiles follows statements with percentiles through writes: each answer is
// Query's (a Live answers them afresh).
func TestLivePercentiles(t *testing.T) {
	t.Parallel()
	s := openDB(t, genRecords(4, 3000, testNow-7300, testNow))
	checkLiveOf(t, s, s.Changes(), 4, []string{"p95(srt), srt BY application", "max(server.rtt) BY time(600) SINCE @now-7200",
		"traffic BY server.name HAVING p99(dtt) > 0.04"}, false)
}

// TestLiveExtremes follows min and max of tls.not_after through writes: each answer is Query's
// (a Live answers them afresh: it takes back the sums of records leaving the period, which an
// extreme cannot do).
func TestLiveExtremes(t *testing.T) {
	t.Parallel()
	s := openDB(t, genRecords(5, 3000, testNow-7300, testNow))
	checkLiveOf(t, s, s.Changes(), 5, []string{"min(tls.not_after), max(tls.not_after) BY server.name FROM tls",
		"0 - min(tls.not_after) BY tls.version FROM tls HAVING max(tls.not_after) > 1900086400"}, false)
}

// countingReader is a records.Reader that counts the seconds of records read.
type countingReader struct {
	records.Reader
	mu   sync.Mutex
	read int64
}

func (c *countingReader) Read(ctx context.Context, p *records.Plan, from, to int64, fn func(*records.Row) error) error {
	c.mu.Lock()
	c.read += to - from
	c.mu.Unlock()
	return c.Reader.Read(ctx, p, from, to, fn)
}

// TestLiveReadsOnlyWhatChanged checks that a followed hour moving by 5 s reads the 5 s it
// gained, dropping those it lost without reading them, plus the bucket a late record changed
// (the hour's 64th rounded up to a minute: 60 s), not the hour; the first bucket per second
// when the period's start enters it; and the whole period again when a record arrives in a
// bucket it keeps in its totals only.
func TestLiveReadsOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	s := openDB(t, genRecords(4, 2000, testNow-7200, testNow))
	c := &countingReader{Reader: s}
	l, err := New(c).Live(strings.Join(liveStatements[:7], "; "), s.Changes())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	answer := func(now int64) int64 {
		t.Helper()
		c.read = 0
		if _, err := l.Answer(context.Background(), time.Unix(now, 0), time.Hour); err != nil {
			t.Fatal(err)
		}
		return c.read
	}
	// testNow is 20 s past a minute: the first bucket holds the period's first 40 s.
	if n := answer(testNow); n != 3600 {
		t.Errorf("the first answer read %d s, want the hour", n)
	}
	if n := answer(testNow + 5); n != 5 {
		t.Errorf("5 s later it read %d s, want 5", n)
	}
	load(t, s, genRecords(5, 1, testNow-150, testNow-149)) // late, in a recent bucket
	if n := answer(testNow + 10); n != 5+60 {
		t.Errorf("after a late record it read %d s, want 5 and the bucket of 60", n)
	}
	if n := answer(testNow + 10); n != 0 {
		t.Errorf("at the same time again it read %d s, want none", n)
	}
	// The next first bucket is subtracted as the totals count it, and read per second.
	if n := answer(testNow + 45); n != 35+60+55 {
		t.Errorf("past the first bucket it read %d s, want 35, 60 and 55", n)
	}
	load(t, s, genRecords(6, 1, testNow-1000, testNow-999)) // late, in the totals only
	if n := answer(testNow + 46); n != 3600 {
		t.Errorf("after a record in the middle of the period it read %d s, want the hour", n)
	}
}

// TestLiveFallsBack checks that a Live answers as Query does when it cannot keep its sums:
// without a store reporting changes, and past the group limit (TOO-MANY-GROUPS alike).
func TestLiveFallsBack(t *testing.T) {
	t.Parallel()
	s := openDB(t, genRecords(6, 2000, testNow-7200, testNow))
	now := time.Unix(testNow, 0)
	for _, tc := range []struct {
		name    string
		engine  *Engine
		changes *records.Changes
	}{
		{"no changes", New(s), nil},
		{"group limit", New(s, WithMaxGroups(40)), s.Changes()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, expr := range []string{"traffic BY application", "traffic BY client.ip, server.ip"} {
				l, err := tc.engine.Live(expr, tc.changes)
				if err != nil {
					t.Fatal(err)
				}
				got, gerr := l.Answer(context.Background(), now, time.Hour)
				want, werr := tc.engine.Query(context.Background(), expr, now, time.Hour)
				l.Close()
				if fmt.Sprint(gerr) != fmt.Sprint(werr) {
					t.Fatalf("%s: error %v, want %v", expr, gerr, werr)
				}
				if werr == nil {
					if d := diffResult(got[0], want[0]); d != "" {
						t.Errorf("%s: %s", expr, d)
					}
				}
			}
		})
	}
}

// TestLiveConcurrentWrites follows a dashboard while batches, in order and late, are written
// at the same time as it answers: once the writes stop, the next answer equals Query's, so
// no write a read saw or missed is lost or counted twice.
func TestLiveConcurrentWrites(t *testing.T) {
	t.Parallel()
	s := openDB(t, genRecords(8, 2000, testNow-7200, testNow))
	engine := New(s)
	expr := strings.Join(liveStatements, "; ")
	l, err := engine.Live(expr, s.Changes())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var now atomic.Int64
	now.Store(testNow)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := uint64(0); ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			n := now.Load()
			from := []int64{n - 5, n - 3400, n - 3700}[i%3] // in order, late, at the period's start
			load(t, s, genRecords(100+i, 20, from, from+200))
		}
	}()
	ctx := context.Background()
	for range 30 {
		if _, err := l.Answer(ctx, time.Unix(now.Add(3), 0), time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	<-done
	at := time.Unix(now.Load(), 0)
	got, err := l.Answer(ctx, at, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	want, err := engine.Query(ctx, expr, at, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if d := diffResult(got[i], want[i]); d != "" {
			t.Errorf("statement %d %q: %s", i+1, liveStatements[i], d)
		}
	}
}

// hookReader is a records.Reader that calls before ahead of each Read.
type hookReader struct {
	records.Reader
	before func(from, to int64)
}

func (h hookReader) Read(ctx context.Context, p *records.Plan, from, to int64, fn func(*records.Row) error) error {
	h.before(from, to)
	return h.Reader.Read(ctx, p, from, to, fn)
}

// TestLiveSettlesWritesDuringAnswer checks an answer whose read of the time its period lost
// (its clock stepped back 5 s) sees a record written after the answer took its changes: that
// record was never added, so the bucket is read again whole and the answer is still Query's.
func TestLiveSettlesWritesDuringAnswer(t *testing.T) {
	t.Parallel()
	s := openDB(t, genRecords(10, 20000, testNow-7200, testNow)) // about 3 records a second
	written := false
	r := hookReader{Reader: s, before: func(from, to int64) {
		if from == testNow-5 && to == testNow && !written {
			written = true
			r := genRecords(11, 1, testNow-3, testNow-2)
			r[0].cBytes, r[0].sBytes = 1, 1 // less than the group's sums: subtracting it goes unseen
			load(t, s, r)
		}
	}}
	expr := "traffic; records; traffic BY time(60)"
	l, err := New(r).Live(expr, s.Changes())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := context.Background()
	for _, now := range []int64{testNow, testNow - 5} {
		got, err := l.Answer(ctx, time.Unix(now, 0), time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		want, err := New(s).Query(ctx, expr, time.Unix(now, 0), time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if d := diffResult(got[i], want[i]); d != "" {
				t.Errorf("at %d, statement %d: %s", now, i+1, d)
			}
		}
	}
	if !written || l.scans == nil {
		t.Errorf("the record was written during the answer: %v; the answer was incremental: %v", written, l.scans != nil)
	}
}
