package pvql

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"
)

// Building blocks of random queries: the text of each part and its meaning for the reference.
type (
	partValue struct {
		text string
		fn   func(refSums) float64
	}
	partKey struct {
		text string
		key  refKey
	}
	partFilter struct {
		text string
		fn   func(r *rec) bool
	}
	partHaving struct {
		text string
		fn   func(s refSums) bool
	}
)

var (
	randomValues = []partValue{
		{"traffic", vTraffic}, {"records", vRecords}, {"packets", vPackets}, {"client.traffic", vCTraffic},
		{"server.packets", func(s refSums) float64 { return float64(s.sp) }},
		{"client.traffic / traffic", vRatio},
		{"server.traffic / server.packets", func(s refSums) float64 { return refDiv(float64(s.sb), float64(s.sp)) }},
		{"traffic * 8 / 1000", func(s refSums) float64 { return float64(s.cb+s.sb) * 8 / 1000 }},
		{"(records + 1) * 2", func(s refSums) float64 { return (float64(s.n) + 1) * 2 }},
		{"server.rtt", vServerRTT}, {"srt", vSRT}, {"retrans", vRetrans},
		{"rtt + dtt", func(s refSums) float64 { return refAvg(s.cRTT, s.cRTTN, s.sRTT, s.sRTTN) + refAvg(s.dtt, s.dttN) }},
		{"p95(srt)", func(s refSums) float64 { return refQuantile(s.srtH, 0.95) }},
		{"p50(client.rtt)", func(s refSums) float64 { return refQuantile(s.cRTTH, 0.5) }},
		{"max(server.rtt) - p99(ct)", func(s refSums) float64 { return refQuantile(s.sRTTH, 1) - refQuantile(s.ctH, 0.99) }},
		{"P99(dtt) * 1000", func(s refSums) float64 { return refQuantile(s.dttH, 0.99) * 1000 }},
	}
	randomKeys = []partKey{
		{"client.ip", refClientIP}, {"server.ip", refServerIP}, {"client.port", refClientPort},
		{"server.port", refServerPort}, {"protocol", refProtocol}, {"application", refApp},
		{"exporter", refExporter}, {"server.name", refServerName},
		{"client.zone", refClientZone}, {"server.zone", refServerZone}, {"client.asn", refClientASN},
		{"server.asn", refServerASN}, {"client.country", refClientCountry}, {"server.country", refServerCountry},
		{"in_if", refInIf}, {"out_if", refOutIf}, {"exporter.name", refExporterName},
		{"client.as_path", refClientPath}, {"server.as_path", refServerPath},
		{"client.communities", refClientComms}, {"server.communities", refServerComms},
	}
	randomTimeKeys = []partKey{{"time(60)", refTime(60)}, {"time(600)", refTime(600)}, {"time(3600)", refTime(3600)}}
	randomFilters  = []partFilter{
		{"client.ip IN 10.0.0.0/29", inPrefix(clientIP, "10.0.0.0/29")},
		{"server.ip IN fd00::/8", inPrefix(serverIP, "fd00::/8")},
		{"client.ip IN (2001:db8::/125, 192.168.1.10)", func(r *rec) bool {
			return netip.MustParsePrefix("2001:db8::/125").Contains(r.cIP) || r.cIP == netip.MustParseAddr("192.168.1.10")
		}},
		{"server.ip = 8.8.8.8", func(r *rec) bool { return r.sIP == netip.MustParseAddr("8.8.8.8") }},
		{"protocol = tcp", func(r *rec) bool { return r.proto == 6 }},
		{"exporter IN 192.0.2.0/31", func(r *rec) bool { return netip.MustParsePrefix("192.0.2.0/31").Contains(r.exporter) }},
		{"exporter != 192.0.2.2", func(r *rec) bool { return r.exporter != netip.MustParseAddr("192.0.2.2") }},
		{"protocol IN (udp, 1)", func(r *rec) bool { return r.proto == 17 || r.proto == 1 }},
		{"server.port < 100", func(r *rec) bool { return r.sPort < 100 }},
		{"client.port != 1025", func(r *rec) bool { return r.cPort != 1025 }},
		{"application != 'dns'", func(r *rec) bool { return r.app != "dns" }},
		{"application IN (https, ssh)", func(r *rec) bool { return r.app == "https" || r.app == "ssh" }},
		{"server.ip >= 2001:db8:ffff::", func(r *rec) bool { return r.sIP.Compare(netip.MustParseAddr("2001:db8:ffff::")) >= 0 }},
		{"client.ip <= 10.0.0.9", func(r *rec) bool { return r.cIP.Compare(netip.MustParseAddr("10.0.0.9")) <= 0 }},
		{"server.ip IN ff00::/8", inPrefix(serverIP, "ff00::/8")},
		{"server.name = 'www.example.com'", func(r *rec) bool { return r.name == "www.example.com" }},
		{"server.name IN (api.example.com, 'cdn.example.net')", func(r *rec) bool { return r.name == "api.example.com" || r.name == "cdn.example.net" }},
		{`client.zone IN "Customers/"`, func(r *rec) bool { return refInZone(r.cZone, "Customers") }},
		{`server.zone IN ("HQ/", other)`, func(r *rec) bool { return refInZone(r.sZone, "HQ") || r.sZone == "" }},
		{`client.zone = "Customers/ACME"`, func(r *rec) bool { return r.cZone == "Customers/ACME" }},
		{`server.zone = "HQ/"`, func(r *rec) bool { return refInZone(r.sZone, "HQ") }},
		{"server.asn = 13335", func(r *rec) bool { return r.sASN == 13335 }},
		{"client.asn IN (15169, 64500)", func(r *rec) bool { return r.cASN == 15169 || r.cASN == 64500 }},
		{"server.country IN (fr, 'US')", func(r *rec) bool { return r.sCountry == "FR" || r.sCountry == "US" }},
		{"client.country = null", func(r *rec) bool { return r.cCountry == "" }},
		{"in_if = 1", func(r *rec) bool { return r.inIf == 1 }},
		{"out_if IN (2, 3)", func(r *rec) bool { return r.outIf == 2 || r.outIf == 3 }},
		{"exporter.name = 'edge1'", func(r *rec) bool { return r.expName == "edge1" }},
		{"server.as_path = 64501", func(r *rec) bool { return slices.Contains(r.sPath, 64501) }},
		{"client.as_path IN (15169, 64520)", func(r *rec) bool { return slices.Contains(r.cPath, 15169) || slices.Contains(r.cPath, 64520) }},
		{"server.as_path != null", func(r *rec) bool { return len(r.sPath) > 0 }},
		{`server.communities IN ("65000:200", "4200000000:1:2")`, func(r *rec) bool {
			return slices.Contains(r.sComms, "65000:200") || slices.Contains(r.sComms, "4200000000:1:2")
		}},
		{`client.communities != "65000:300"`, func(r *rec) bool { return !slices.Contains(r.cComms, "65000:300") }},
	}
	randomHavings = []partHaving{
		{"records > 20", func(s refSums) bool { return s.n > 20 }},
		{"traffic >= 5000000", func(s refSums) bool { return s.cb+s.sb >= 5000000 }},
		{"client.traffic / records < 50000", func(s refSums) bool {
			v := refDiv(float64(s.cb), float64(s.n))
			return v == v && v < 50000
		}},
		{"packets != 0", func(s refSums) bool { return s.cp+s.sp != 0 }},
	}
)

// randomFilter combines up to depth levels of filters with AND, OR and NOT.
func randomFilter(rng *rand.Rand, depth int) partFilter {
	if depth == 0 || rng.IntN(3) == 0 {
		return randomFilters[rng.IntN(len(randomFilters))]
	}
	a, b := randomFilter(rng, depth-1), randomFilter(rng, depth-1)
	switch rng.IntN(3) {
	case 0:
		return partFilter{"(" + a.text + " AND " + b.text + ")", func(r *rec) bool { return a.fn(r) && b.fn(r) }}
	case 1:
		return partFilter{"(" + a.text + " OR " + b.text + ")", func(r *rec) bool { return a.fn(r) || b.fn(r) }}
	}
	return partFilter{"NOT " + a.text, func(r *rec) bool { return !a.fn(r) }}
}

func randomHaving(rng *rand.Rand) partHaving {
	a := randomHavings[rng.IntN(len(randomHavings))]
	if rng.IntN(2) == 0 {
		return a
	}
	b := randomHavings[rng.IntN(len(randomHavings))]
	if rng.IntN(2) == 0 {
		return partHaving{a.text + " AND NOT " + b.text, func(s refSums) bool { return a.fn(s) && !b.fn(s) }}
	}
	return partHaving{"(" + a.text + " OR " + b.text + ")", func(s refSums) bool { return a.fn(s) || b.fn(s) }}
}

// randomBy returns up to two random keys and, one time in three, a time key among them, as
// text and meaning.
func randomBy(rng *rand.Rand) ([]string, []refKey) {
	var texts []string
	var keys []refKey
	for _, i := range rng.Perm(len(randomKeys))[:rng.IntN(3)] {
		texts = append(texts, randomKeys[i].text)
		keys = append(keys, randomKeys[i].key)
	}
	if rng.IntN(3) == 0 {
		k := randomTimeKeys[rng.IntN(len(randomTimeKeys))]
		at := rng.IntN(len(texts) + 1)
		texts = append(texts[:at], append([]string{k.text}, texts[at:]...)...)
		keys = append(keys[:at], append([]refKey{k.key}, keys[at:]...)...)
	}
	return texts, keys
}

// randomQuery returns a statement and its meaning.
func randomQuery(rng *rand.Rand) (string, refQuery) {
	q := refQuery{since: testNow - 3600, until: testNow}
	var texts []string
	for range 1 + rng.IntN(3) {
		v := randomValues[rng.IntN(len(randomValues))]
		texts = append(texts, v.text)
		q.values = append(q.values, v.fn)
	}
	var clauses []string
	var keys []string
	keys, q.keys = randomBy(rng)
	if len(keys) > 0 {
		clauses = append(clauses, "BY "+strings.Join(keys, ", "))
	}
	var where []func(r *rec) bool
	if rng.IntN(2) == 0 {
		f := randomFilter(rng, 2)
		clauses = append(clauses, "WHERE "+f.text)
		where = append(where, f.fn)
	}
	if rng.IntN(4) == 0 {
		l := []struct {
			name  string
			proto uint8
		}{{"tcp", 6}, {"udp", 17}, {"icmp", 1}}[rng.IntN(3)]
		clauses = append(clauses, "FROM "+l.name)
		where = append(where, func(r *rec) bool { return r.proto == l.proto })
	}
	if len(where) > 0 {
		q.where = func(r *rec) bool {
			for _, w := range where {
				if !w(r) {
					return false
				}
			}
			return true
		}
	}
	if rng.IntN(3) == 0 {
		h := randomHaving(rng)
		clauses = append(clauses, "HAVING "+h.text)
		q.having = func(s refSums, _ []float64) bool { return h.fn(s) }
	}
	if rng.IntN(3) == 0 {
		q.top = 1 + rng.IntN(5)
		clauses = append(clauses, fmt.Sprintf("TOP %d", q.top))
	}
	switch rng.IntN(4) {
	case 0:
		back := 600 + rng.Int64N(7000)
		q.since = testNow - back
		clauses = append(clauses, fmt.Sprintf("SINCE @now-%d", back))
	case 1:
		q.since, q.until = testNow-7300+rng.Int64N(3000), testNow-3000+rng.Int64N(3200)
		clauses = append(clauses, fmt.Sprintf("SINCE %d UNTIL %d", q.since, q.until))
	case 2: // empty or reversed
		q.since = testNow - rng.Int64N(3000)
		q.until = q.since - rng.Int64N(100)
		clauses = append(clauses, fmt.Sprintf("SINCE %d UNTIL %d", q.since, q.until))
	}
	rng.Shuffle(len(clauses), func(i, j int) { clauses[i], clauses[j] = clauses[j], clauses[i] })
	return strings.Join(append([]string{strings.Join(texts, ", ")}, clauses...), " "), q
}

func TestRandomQueriesAgainstReference(t *testing.T) {
	t.Parallel()
	recs := testRecords()
	checkRandomQueries(t, New(openDB(t, recs), WithStreamSlices(3)), recs, 300, nil)
}

// checkRandomQueries runs n random queries on engine and checks them against the reference on
// recs, and, when other is not nil, against other's answers too.
func checkRandomQueries(t *testing.T, engine *Engine, recs []rec, n int, other *Engine) {
	rng := rand.New(rand.NewPCG(42, 43))
	for i := range n {
		n := 1 + rng.IntN(2)
		var texts []string
		var want []refQuery
		for range n {
			text, q := randomQuery(rng)
			texts = append(texts, text)
			want = append(want, q)
		}
		expr, got := queryAgainstReference(t, engine, i, texts, want, recs)
		if other != nil {
			theirs, err := other.Query(context.Background(), expr, time.Unix(testNow, 0), time.Hour)
			if err != nil {
				t.Fatalf("query %d %q on the other store: %v", i, expr, err)
			}
			for j := range got {
				if d := diffResult(got[j], theirs[j]); d != "" {
					t.Errorf("query %d %q, statement %d differs between stores: %s", i, expr, j+1, d)
				}
			}
		}
		if i%5 != 0 {
			continue
		}
		checkStream(t, engine, i, expr, got)
	}
}

// checkStream checks that streaming query i, expr, ends with got, its answer.
func checkStream(t *testing.T, engine *Engine, i int, expr string, got []Result) {
	t.Helper()
	var last []Result
	err := engine.Stream(context.Background(), expr, time.Unix(testNow, 0), time.Hour, func(r []Result, _ float64) error {
		last = r
		return nil
	})
	if err != nil {
		t.Fatalf("stream %d %q: %v", i, expr, err)
	}
	for j := range got {
		if d := diffResult(last[j], got[j]); d != "" {
			t.Errorf("stream %d %q, statement %d: %s", i, expr, j+1, d)
		}
	}
}
