package records

import (
	"context"
	"fmt"
	"math/big"
	"net/netip"
	"reflect"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// sumHour is the hour the tests of sums fill, its first second.
const sumHour = int64(19_000)*86400 + 7200

// sumRecords makes, in one minute of sumHour, what an attacker can ingest: 2,049 records of
// MaxCount a side (application "https": their sums pass MaxSum), 2,048 more (application
// "ssh": their sums are MaxSum-2047, exact), and 3 small ones ("dns"), over four client
// addresses.
func sumRecords() []Record {
	var out []Record
	add := func(n int, app string, count uint64) {
		for i := range n {
			out = append(out, Record{Time: sumHour + 60 + int64(i%60), Protocol: TCP, Application: app,
				Client: Endpoint{IP: netip.AddrFrom4([4]byte{10, 0, 0, byte(i % 4)}), Port: 40000, Bytes: count, Packets: count},
				Server: Endpoint{IP: netip.MustParseAddr("2001:db8::1"), Port: 443, Bytes: count, Packets: count}})
		}
	}
	add(2049, "https", MaxCount)
	add(2048, "ssh", MaxCount)
	add(3, "dns", 100)
	return out
}

// sumQueries are the statements the tests of sums read: a total, by application, by minute
// and application (the rollups without addresses), by server and by client address (those
// with).
func sumQueries() []*Query {
	all := []Sum{SumClientBytes, SumServerBytes, SumClientPackets, SumServerPackets, SumRecords}
	return []*Query{
		{Sums: all},
		{Groups: []Group{{Column: ColApplication}}, Sums: all},
		{Groups: []Group{{Bucket: 60}, {Column: ColApplication}}, Sums: all},
		{Groups: []Group{{Column: ColServerIP}}, Sums: all},
		{Groups: []Group{{Column: ColClientIP}, {Column: ColApplication}}, Sums: all},
	}
}

// wantSums returns the sums of each group of q over recs, as sumsBy keys them: exact, computed
// without overflow, and MaxSum where they pass it.
func wantSums(q *Query, recs []Record) map[string][]uint64 {
	exact := map[string][]*big.Int{}
	for i := range recs {
		r := &recs[i]
		var keys []Value
		for _, g := range q.Groups {
			switch {
			case g.Bucket > 0:
				keys = append(keys, Value{Lo: uint64(floorTo(r.Time, g.Bucket) + g.Bucket)})
			case g.Column == ColApplication:
				keys = append(keys, Value{Str: r.Application})
			default:
				hi, lo := Halves(columns[g.Column].addr(r))
				keys = append(keys, Value{Hi: hi, Lo: lo})
			}
		}
		k := fmt.Sprint(0, keys) // sumsBy reads one query at a time
		if exact[k] == nil {
			exact[k] = []*big.Int{new(big.Int), new(big.Int), new(big.Int), new(big.Int), new(big.Int)}
		}
		for j, v := range []uint64{r.Client.Bytes, r.Server.Bytes, r.Client.Packets, r.Server.Packets, 1} {
			exact[k][j].Add(exact[k][j], new(big.Int).SetUint64(v))
		}
	}
	out := map[string][]uint64{}
	for k, sums := range exact {
		for _, s := range sums {
			v := uint64(MaxSum)
			if s.IsUint64() {
				v = s.Uint64()
			}
			out[k] = append(out[k], v)
		}
	}
	return out
}

// checkSums reads every query of sumQueries over the whole of sumHour and over a period that
// cuts it, from the records alone and through the rollups, and checks every sum against
// wantSums.
func checkSums(t *testing.T, s Reader, recs []Record) {
	t.Helper()
	for _, q := range sumQueries() {
		want := wantSums(q, recs)
		for _, period := range [][2]int64{{sumHour, sumHour + 3600}, {sumHour + 61, sumHour + 3599}} {
			for _, raw := range []bool{true, false} {
				rolled := !raw && period[0] == sumHour
				if !raw && !rolled {
					continue
				}
				got := sumsBy(t, s, period[0], period[1], raw, q)
				w := want
				if period[0] != sumHour {
					w = wantSums(q, slicesOf(recs, period[0], period[1]))
				}
				if !reflect.DeepEqual(got, w) {
					t.Errorf("%+v over [%d, %d), rollups %v: read %v, want %v", q, period[0], period[1], rolled, got, w)
				}
			}
		}
	}
}

// slicesOf returns the records of recs with from <= time < to.
func slicesOf(recs []Record, from, to int64) []Record {
	var out []Record
	for _, r := range recs {
		if r.Time >= from && r.Time < to {
			out = append(out, r)
		}
	}
	return out
}

// ingestSums ingests recs into s in batches of 1,000 (several rollup rows, and on ClickHouse
// several parts, for a bucket and keys), then one record three hours later, which makes
// sumHour due for DuckDB's background rollups.
func ingestSums(t *testing.T, s Store, recs []Record) {
	t.Helper()
	ctx := context.Background()
	for i := 0; i < len(recs); i += 1000 {
		if err := s.Ingest(ctx, recs[i:min(i+1000, len(recs))]); err != nil {
			t.Fatal(err)
		}
	}
	late := recs[len(recs)-1]
	late.Time = sumHour + 3*3600
	if err := s.Ingest(ctx, []Record{late}); err != nil {
		t.Fatal(err)
	}
}

// TestSumsSaturateDuckDB checks that sums past MaxSum answer MaxSum, and those below it
// exactly, from DuckDB's records and every rollup (those kept in each ingest, the background
// ones once rolled up, after a compaction), rather than failing the read or wrapping around.
func TestSumsSaturateDuckDB(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	recs := sumRecords()
	ingestSums(t, s, recs)
	if err := s.CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	for i := range s.rollups {
		if r := &s.rollups[i]; r.background && s.marks.of(r) < sumHour+3600 {
			t.Fatalf("%s rolled up to %d only", r.table, s.marks.of(r))
		}
	}
	checkSums(t, s, recs)
	for i := range s.rollups {
		if _, err := s.rollups[i].compact(context.Background(), s.db, sumHour, sumHour+3600); err != nil {
			t.Fatalf("compact %s: %v", s.rollups[i].table, err)
		}
	}
	checkSums(t, s, recs)
}

// TestSumsSaturateClickHouse is TestSumsSaturateDuckDB on ClickHouse: its records, and its
// rollups after their parts are merged (where a SummingMergeTree adds the rows up).
func TestSumsSaturateClickHouse(t *testing.T) {
	t.Parallel()
	srv := testenv.ClickHouse(t)
	s := OpenClickHouseTest(t, srv.URL, "")
	recs := sumRecords()
	ingestSums(t, s, recs)
	checkSums(t, s, recs)
	raw := RawClickHouse(t, srv.URL)
	for _, r := range chRollups {
		if err := raw.Exec(context.Background(), "OPTIMIZE TABLE "+r.table+" FINAL"); err != nil {
			t.Fatal(err)
		}
	}
	checkSums(t, s, recs)
}

// TestAddSum checks that AddSum saturates at MaxSum and is exact below.
func TestAddSum(t *testing.T) {
	t.Parallel()
	for _, tc := range [][3]uint64{
		{1, 2, 3}, {MaxSum - 1, 1, MaxSum}, {MaxSum, 1, MaxSum}, {MaxSum - 5, 7, MaxSum}, {MaxSum, MaxSum, MaxSum}, {0, 0, 0},
	} {
		if got := AddSum(tc[0], tc[1]); got != tc[2] {
			t.Errorf("AddSum(%d, %d) = %d, want %d", tc[0], tc[1], got, tc[2])
		}
	}
}

// TestSumsOfAnEarlierVersion checks that a file of an earlier version, whose rollups hold a
// sum that wrapped around, has the hours where its records pass MaxSum summed anew when opened,
// once.
func TestSumsOfAnEarlierVersion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s, err := OpenDuckDB(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	recs := sumRecords()
	ingestSums(t, s, recs)
	if err := s.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	// What an earlier version left: rows of wrapped sums, and no saturatedTable.
	for _, r := range s.rollups {
		if _, err := s.db.ExecContext(ctx, "UPDATE "+r.table+" SET client_bytes = 12345 WHERE application = 'https'"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.db.ExecContext(ctx, "DROP TABLE "+saturatedTable); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = OpenDuckDB(ctx, dir); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkSums(t, s, recs)
}
