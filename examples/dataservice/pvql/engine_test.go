package pvql

import (
	"context"
	"errors"
	"math"
	"net/netip"
	"testing"
	"time"
)

const testNow = int64(1_700_000_000)

// testRecords spans two hours around testNow, plus a few records in the first minutes of 1970
// (no store takes earlier ones).
func testRecords() []rec {
	recs := genRecords(1, 5000, testNow-7300, testNow+100)
	recs = append(recs, genLayerRecords(3, 900, testNow-7300, testNow+100)...)
	return append(recs, genRecords(2, 60, 0, 300)...)
}

var (
	vTraffic  = func(s refSums) float64 { return float64(s.cb + s.sb) }
	vRecords  = func(s refSums) float64 { return float64(s.n) }
	vPackets  = func(s refSums) float64 { return float64(s.cp + s.sp) }
	vCTraffic = func(s refSums) float64 { return float64(s.cb) }
	vRatio    = func(s refSums) float64 { return refDiv(float64(s.cb), float64(s.cb+s.sb)) }
	// The capture probe's.
	vServerRTT = func(s refSums) float64 { return refAvg(s.sRTT, s.sRTTN) }
	vSRT       = func(s refSums) float64 { return refAvg(s.srt, s.srtN) }
	vRetrans   = func(s refSums) float64 { return float64(s.cRetrans + s.sRetrans) }
)

func lastHour(q refQuery) refQuery {
	q.since, q.until = testNow-3600, testNow
	return q
}

func inPrefix(get func(r *rec) netip.Addr, s string) func(r *rec) bool {
	p := netip.MustParsePrefix(s)
	return func(r *rec) bool { return p.Contains(get(r)) }
}

func clientIP(r *rec) netip.Addr { return r.cIP }
func serverIP(r *rec) netip.Addr { return r.sIP }

func TestQueryAgainstReference(t *testing.T) {
	t.Parallel()
	recs := testRecords()
	engine := New(openDB(t, recs))
	now := time.Unix(testNow, 0)
	cases := []struct {
		name, expr string
		period     time.Duration // default period; 0 means one hour
		want       []refQuery
	}{
		{"total", "traffic", 0, []refQuery{lastHour(refQuery{values: vals(vTraffic)})}},
		{"total keyword", "total traffic, records", 0, []refQuery{lastHour(refQuery{values: vals(vTraffic, vRecords)})}},
		{"by exporter", "records, traffic BY exporter", 0,
			[]refQuery{lastHour(refQuery{keys: []refKey{refExporter}, values: vals(vRecords, vTraffic)})}},
		{"exporter in a CIDR", "records BY exporter, protocol WHERE exporter IN 192.0.2.0/24 AND NOT exporter = 192.0.2.2", 0,
			[]refQuery{lastHour(refQuery{keys: []refKey{refExporter, refProtocol}, values: vals(vRecords), where: func(r *rec) bool {
				return netip.MustParsePrefix("192.0.2.0/24").Contains(r.exporter) && r.exporter != netip.MustParseAddr("192.0.2.2")
			}})}},
		{"by client ip", "traffic, records, client.traffic / traffic BY client.ip", 0,
			[]refQuery{lastHour(refQuery{keys: []refKey{refClientIP}, values: vals(vTraffic, vRecords, vRatio)})}},
		{"by server ip and port", "packets BY server.ip, server.port SINCE @now-7200 UNTIL @now+100", 0,
			[]refQuery{{since: testNow - 7200, until: testNow + 100, keys: []refKey{refServerIP, refServerPort}, values: vals(vPackets)}}},
		{"by protocol", "records BY protocol", 0, []refQuery{lastHour(refQuery{keys: []refKey{refProtocol}, values: vals(vRecords)})}},
		{"by application and client port", "client.packets BY application, client.port", 0,
			[]refQuery{lastHour(refQuery{keys: []refKey{refApp, refClientPort}, values: vals(func(s refSums) float64 { return float64(s.cp) })})}},
		{"time buckets", "traffic BY time(60)", 0, []refQuery{lastHour(refQuery{keys: []refKey{refTime(60)}, values: vals(vTraffic)})}},
		{"time with other key", "records, traffic BY protocol, time(300) SINCE @now-7200", 0,
			[]refQuery{{since: testNow - 7200, until: testNow, keys: []refKey{refProtocol, refTime(300)}, values: vals(vRecords, vTraffic)}}},
		{"period from before 1970", "records BY time(60) SINCE -1000 UNTIL 200", 0,
			[]refQuery{{since: -1000, until: 200, keys: []refKey{refTime(60)}, values: vals(vRecords)}}},
		{"default period", "traffic BY server.ip", 2 * time.Hour,
			[]refQuery{{since: testNow - 7200, until: testNow, keys: []refKey{refServerIP}, values: vals(vTraffic)}}},
		{"absolute period", "traffic BY client.ip SINCE 1699995000 UNTIL 1699999000", 0,
			[]refQuery{{since: 1699995000, until: 1699999000, keys: []refKey{refClientIP}, values: vals(vTraffic)}}},
		{"only until", "records UNTIL @now-600", 0, []refQuery{{since: testNow - 4200, until: testNow - 600, values: vals(vRecords)}}},
		{"ipv4 cidr", "traffic BY client.ip WHERE client.ip IN 10.0.0.0/28", 0,
			[]refQuery{lastHour(refQuery{keys: []refKey{refClientIP}, values: vals(vTraffic), where: inPrefix(clientIP, "10.0.0.0/28")})}},
		{"ipv6 cidr high half", "records BY server.ip WHERE server.ip IN fd00::/8", 0,
			[]refQuery{lastHour(refQuery{keys: []refKey{refServerIP}, values: vals(vRecords), where: inPrefix(serverIP, "fd00::/8")})}},
		{"ipv6 wide cidr", "records BY client.ip WHERE client.ip IN 2001:db8::/32", 0,
			[]refQuery{lastHour(refQuery{keys: []refKey{refClientIP}, values: vals(vRecords), where: inPrefix(clientIP, "2001:db8::/32")})}},
		{"ip list with cidr", "records BY client.ip WHERE client.ip IN (10.0.0.1, '192.168.1.11', 2001:db8::/126)", 0,
			[]refQuery{lastHour(refQuery{keys: []refKey{refClientIP}, values: vals(vRecords), where: func(r *rec) bool {
				return r.cIP == netip.MustParseAddr("10.0.0.1") || r.cIP == netip.MustParseAddr("192.168.1.11") ||
					netip.MustParsePrefix("2001:db8::/126").Contains(r.cIP)
			}})}},
		{"ip order comparison", "records BY client.ip WHERE client.ip > 10.0.0.3 AND client.ip <= 2001:db8::2", 0,
			[]refQuery{lastHour(refQuery{keys: []refKey{refClientIP}, values: vals(vRecords), where: func(r *rec) bool {
				a := netip.AddrFrom16(r.cIP.As16())
				return a.Compare(netip.AddrFrom16(netip.MustParseAddr("10.0.0.3").As16())) > 0 &&
					a.Compare(netip.MustParseAddr("2001:db8::2")) <= 0
			}})}},
		{"ip not equal", "records BY server.ip WHERE server.ip != 8.8.8.8 AND NOT server.ip = ff02::1", 0,
			[]refQuery{lastHour(refQuery{keys: []refKey{refServerIP}, values: vals(vRecords), where: func(r *rec) bool {
				return r.sIP != netip.MustParseAddr("8.8.8.8") && r.sIP != netip.MustParseAddr("ff02::1")
			}})}},
		{"not or in", "traffic BY application WHERE NOT (protocol = udp OR application IN ('dns', \"ntp\"))", 0,
			[]refQuery{lastHour(refQuery{keys: []refKey{refApp}, values: vals(vTraffic), where: func(r *rec) bool {
				return !(r.proto == 17 || r.app == "dns" || r.app == "ntp")
			}})}},
		{"ports and precedence", "records BY server.port WHERE client.port >= 1027 AND server.port < 443 OR protocol = 47", 0,
			[]refQuery{lastHour(refQuery{keys: []refKey{refServerPort}, values: vals(vRecords), where: func(r *rec) bool {
				return r.cPort >= 1027 && r.sPort < 443 || r.proto == 47
			}})}},
		{"protocol in and string compare", "records BY protocol, application WHERE protocol IN (6, 'icmp') AND application >= 'i'", 0,
			[]refQuery{lastHour(refQuery{keys: []refKey{refProtocol, refApp}, values: vals(vRecords), where: func(r *rec) bool {
				return (r.proto == 6 || r.proto == 1) && r.app >= "i"
			}})}},
		{"layer tcp", "traffic BY server.port FROM tcp", 0,
			[]refQuery{lastHour(refQuery{keys: []refKey{refServerPort}, values: vals(vTraffic), where: func(r *rec) bool { return r.proto == 6 }})}},
		{"layer udp", "records FROM UDP", 0, []refQuery{lastHour(refQuery{values: vals(vRecords), where: func(r *rec) bool { return r.proto == 17 }})}},
		{"layer icmp", "records BY client.ip from icmp", 0,
			[]refQuery{lastHour(refQuery{keys: []refKey{refClientIP}, values: vals(vRecords), where: func(r *rec) bool { return r.proto == 1 }})}},
		{"division by zero", "server.traffic / server.packets, records BY protocol", 0,
			[]refQuery{lastHour(refQuery{keys: []refKey{refProtocol}, values: vals(func(s refSums) float64 { return refDiv(float64(s.sb), float64(s.sp)) }, vRecords)})}},
		{"division by constant zero", "traffic / 0, 1 + 2", 0,
			[]refQuery{lastHour(refQuery{values: vals(func(refSums) float64 { return math.NaN() }, func(refSums) float64 { return 3 })})}},
		{"arithmetic precedence", "traffic - client.traffic * 2 + (records + 1) / 2 BY protocol", 0,
			[]refQuery{lastHour(refQuery{keys: []refKey{refProtocol}, values: vals(func(s refSums) float64 {
				return float64(s.cb+s.sb) - float64(s.cb)*2 + (float64(s.n)+1)/2
			})})}},
		{"having", "traffic BY client.ip HAVING traffic > 30000000", 0,
			[]refQuery{lastHour(refQuery{keys: []refKey{refClientIP}, values: vals(vTraffic),
				having: func(s refSums, v []float64) bool { return v[0] > 30000000 }})}},
		{"having alias and other metric", "traffic AS \"t\" BY server.ip HAVING \"t\" >= 40000000 AND records < 200 OR NOT (client.packets / records <= 49.5)", 0,
			[]refQuery{lastHour(refQuery{keys: []refKey{refServerIP}, values: vals(vTraffic),
				having: func(s refSums, v []float64) bool {
					r := refDiv(float64(s.cp), float64(s.n))
					return v[0] >= 40000000 && s.n < 200 || !(r <= 49.5)
				}})}},
		{"having bare alias parenthesised", "client.traffic / traffic AS \"ratio\" BY application HAVING (ratio * 100) > 9 AND (ratio IN (1, 2) OR ratio < 0.2)", 0,
			[]refQuery{lastHour(refQuery{keys: []refKey{refApp}, values: vals(vRatio),
				having: func(s refSums, v []float64) bool { return v[0]*100 > 9 && (v[0] == 1 || v[0] == 2 || v[0] < 0.2) }})}},
		{"having on null", "server.traffic / server.packets BY protocol HAVING NOT server.traffic / server.packets > 0", 0,
			[]refQuery{lastHour(refQuery{keys: []refKey{refProtocol}, values: vals(func(s refSums) float64 { return refDiv(float64(s.sb), float64(s.sp)) }),
				having: func(s refSums, v []float64) bool { return !(!math.IsNaN(v[0]) && v[0] > 0) }})}},
		{"having removes single row", "records HAVING records > 100000000", 0,
			[]refQuery{lastHour(refQuery{values: vals(vRecords), having: func(refSums, []float64) bool { return false }})}},
		{"top", "traffic BY client.ip TOP 3", 0, []refQuery{lastHour(refQuery{keys: []refKey{refClientIP}, values: vals(vTraffic), top: 3})}},
		{"top larger than groups", "traffic BY protocol TOP 100", 0, []refQuery{lastHour(refQuery{keys: []refKey{refProtocol}, values: vals(vTraffic), top: 100})}},
		{"top with time", "traffic BY client.ip, time(600) TOP 2", 0,
			[]refQuery{lastHour(refQuery{keys: []refKey{refClientIP, refTime(600)}, values: vals(vTraffic), top: 2})}},
		{"having then top with time", "traffic, records BY time(600), server.ip HAVING records > 12 TOP 3 SINCE @now-7200", 0,
			[]refQuery{{since: testNow - 7200, until: testNow, keys: []refKey{refTime(600), refServerIP}, values: vals(vTraffic, vRecords), top: 3,
				having: func(s refSums, v []float64) bool { return v[1] > 12 }}}},
		{"top on time only", "records BY time(900) TOP 1", 0, []refQuery{lastHour(refQuery{keys: []refKey{refTime(900)}, values: vals(vRecords), top: 1})}},
		{"empty without keys", "traffic, traffic / records SINCE 1 UNTIL 2", 0,
			[]refQuery{{since: 1, until: 2, values: vals(vTraffic, func(s refSums) float64 { return refDiv(float64(s.cb+s.sb), float64(s.n)) })}}},
		{"empty with keys", "traffic BY client.ip WHERE application = 'nope'", 0,
			[]refQuery{lastHour(refQuery{keys: []refKey{refClientIP}, values: vals(vTraffic), where: func(*rec) bool { return false }})}},
		{"huge relative bounds", "records SINCE @now-9223372036854775807 UNTIL @now+9223372036854775807", 0,
			[]refQuery{{since: -timeBound, until: timeBound, values: vals(vRecords)}}},
		{"reversed period", "records SINCE @now UNTIL @now-10", 0, []refQuery{{since: testNow, until: testNow - 10, values: vals(vRecords)}}},
		{"several statements", "traffic; records BY protocol FROM tcp; client.traffic BY time(1200) SINCE @now-7200;", 0, []refQuery{
			lastHour(refQuery{values: vals(vTraffic)}),
			lastHour(refQuery{keys: []refKey{refProtocol}, values: vals(vRecords), where: func(r *rec) bool { return r.proto == 6 }}),
			{since: testNow - 7200, until: testNow, keys: []refKey{refTime(1200)}, values: vals(vCTraffic)},
		}},
		{"capture values by server name", "server.rtt, srt, retrans, eurt BY server.name WHERE server.name IN ('WWW.example.com', \"api.example.com\")", 0,
			[]refQuery{lastHour(refQuery{keys: []refKey{refServerName}, values: vals(vServerRTT, vSRT, vRetrans,
				func(s refSums) float64 { return refAvg(s.cRTT, s.cRTTN, s.sRTT, s.sRTTN, s.srt, s.srtN, s.dtt, s.dttN) }),
				where: func(r *rec) bool { return r.name == "www.example.com" || r.name == "api.example.com" }})}},
		{"capture values over time with traffic", "srt * 1000, traffic BY time(600), application HAVING srt > 0.2 SINCE @now-7200", 0,
			[]refQuery{{since: testNow - 7200, until: testNow, keys: []refKey{refTime(600), refApp}, values: vals(func(s refSums) float64 { return vSRT(s) * 1000 }, vTraffic),
				having: func(s refSums, v []float64) bool { return vSRT(s) > 0.2 }}}},
		{"server name equal and null", "records, server.rtt BY server.name, protocol WHERE server.name = 'cdn.example.net' OR protocol = udp", 0,
			[]refQuery{lastHour(refQuery{keys: []refKey{refServerName, refProtocol}, values: vals(vRecords, vServerRTT),
				where: func(r *rec) bool { return r.name == "cdn.example.net" || r.proto == 17 }})}},
		{"percentiles by application", "p95(srt), p50(server.rtt), max(dtt), p99(client.rtt) + p99(ct) BY application", 0,
			[]refQuery{lastHour(refQuery{keys: []refKey{refApp}, values: vals(func(s refSums) float64 { return refQuantile(s.srtH, 0.95) },
				func(s refSums) float64 { return refQuantile(s.sRTTH, 0.5) }, func(s refSums) float64 { return refQuantile(s.dttH, 1) },
				func(s refSums) float64 { return refQuantile(s.cRTTH, 0.99) + refQuantile(s.ctH, 0.99) })})}},
		{"percentiles over time, top and having", "p95(srt), srt BY time(600), server.name TOP 2 HAVING max(srt) > 0.3 SINCE @now-7200", 0,
			[]refQuery{{since: testNow - 7200, until: testNow, keys: []refKey{refTime(600), refServerName}, top: 2,
				values: vals(func(s refSums) float64 { return refQuantile(s.srtH, 0.95) }, vSRT),
				having: func(s refSums, v []float64) bool { return refQuantile(s.srtH, 1) > 0.3 }}}},
		{"percentile of no samples", "p95(srt), records FROM udp", 0,
			[]refQuery{lastHour(refQuery{values: vals(func(s refSums) float64 { return refQuantile(s.srtH, 0.95) }, vRecords),
				where: func(r *rec) bool { return r.proto == 17 }})}},
		{"clauses in any order", "records BY server.port TOP 2 WHERE protocol = tcp SINCE @now-1800 FROM transport", 0,
			[]refQuery{{since: testNow - 1800, until: testNow, keys: []refKey{refServerPort}, values: vals(vRecords), top: 2,
				where: func(r *rec) bool { return r.proto == 6 }}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			period := tc.period
			if period == 0 {
				period = time.Hour
			}
			got, err := engine.Query(context.Background(), tc.expr, now, period)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%d results, want %d", len(got), len(tc.want))
			}
			for i, q := range tc.want {
				if d := diffResult(got[i], q.answer(recs)); d != "" {
					t.Errorf("statement %d: %s", i+1, d)
				}
			}
		})
	}
}

func vals(v ...func(refSums) float64) []func(refSums) float64 { return v }

func TestStreamEndsWithQueryAnswer(t *testing.T) {
	t.Parallel()
	engine := New(openDB(t, testRecords()), WithStreamSlices(5))
	now := time.Unix(testNow, 0)
	for _, expr := range []string{
		"traffic, client.traffic / traffic BY client.ip",
		"records BY time(60), protocol HAVING records > 3",
		"traffic BY server.ip, time(300) TOP 2 SINCE @now-7200; records",
		"records SINCE @now UNTIL @now+3",
	} {
		t.Run(expr, func(t *testing.T) {
			want, err := engine.Query(context.Background(), expr, now, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			var calls int
			var last []Result
			var lastProgress float64
			var accumulated int64
			err = engine.Stream(context.Background(), expr, now, time.Hour, func(partial []Result, progress float64) error {
				calls++
				if progress <= lastProgress || progress > 1 {
					t.Errorf("progress %v after %v", progress, lastProgress)
				}
				if partial[0].Meta.AccumulatedTime < accumulated {
					t.Errorf("accumulated_time went down to %d from %d", partial[0].Meta.AccumulatedTime, accumulated)
				}
				accumulated, lastProgress, last = partial[0].Meta.AccumulatedTime, progress, partial
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if calls != 5 || lastProgress != 1 {
				t.Errorf("%d calls ending at progress %v, want 5 ending at 1", calls, lastProgress)
			}
			for i := range want {
				if d := diffResult(last[i], want[i]); d != "" {
					t.Errorf("statement %d: %s", i+1, d)
				}
			}
		})
	}
}

func TestStreamStopsOnCallbackError(t *testing.T) {
	t.Parallel()
	engine := New(openDB(t, testRecords()))
	stop := errors.New("stop")
	calls := 0
	err := engine.Stream(context.Background(), "traffic", time.Unix(testNow, 0), time.Hour, func([]Result, float64) error {
		calls++
		return stop
	})
	if err != stop || calls != 1 {
		t.Errorf("Stream = %v after %d calls, want the callback's error after 1", err, calls)
	}
}

func TestQueryErrors(t *testing.T) {
	t.Parallel()
	db := openDB(t, testRecords())
	now := time.Unix(testNow, 0)
	t.Run("syntax", func(t *testing.T) {
		_, err := New(db).Query(context.Background(), "traffic BY nothing", now, time.Hour)
		var se *SyntaxError
		if !errors.As(err, &se) || se.Position != 11 {
			t.Errorf("err = %v, want a SyntaxError at 11", err)
		}
	})
	t.Run("too many groups", func(t *testing.T) {
		_, err := New(db, WithMaxGroups(3)).Query(context.Background(), "records BY client.ip", now, time.Hour)
		if !errors.Is(err, ErrTooManyGroups) {
			t.Errorf("err = %v, want ErrTooManyGroups", err)
		}
		if _, err := New(db, WithMaxGroups(3)).Query(context.Background(), "records BY protocol WHERE protocol IN (tcp, udp)", now, time.Hour); err != nil {
			t.Errorf("2 groups with a limit of 3: %v", err)
		}
		// The limit is the query's: two statements of 2 groups each are 4.
		two := "records BY protocol WHERE protocol IN (tcp, udp); records BY protocol WHERE protocol IN (tcp, udp)"
		var ge *GroupsError
		if _, err := New(db, WithMaxGroups(3)).Query(context.Background(), two, now, time.Hour); !errors.As(err, &ge) || ge.Limit != 3 {
			t.Errorf("2 statements of 2 groups with a limit of 3: %v", err)
		}
		if err := New(db, WithMaxGroups(3)).Stream(context.Background(), two, now, time.Hour, func([]Result, float64) error { return nil }); !errors.Is(err, ErrTooManyGroups) {
			t.Errorf("streamed, 2 statements of 2 groups with a limit of 3: %v", err)
		}
		if _, err := New(db, WithMaxGroups(4)).Query(context.Background(), two, now, time.Hour); err != nil {
			t.Errorf("2 statements of 2 groups with a limit of 4: %v", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := New(db).Query(ctx, "records BY client.ip", now, time.Hour); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}
