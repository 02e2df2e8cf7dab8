package collect

import (
	"math"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/histogram"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// efield is a field of an IPFIX template, of an enterprise when pen is not 0.
type efield struct {
	typ, length uint16
	pen         uint32
}

// ipfixTemplate returns an IPFIX template record whose enterprise fields carry their number
// (RFC 7011, section 3.2).
func ipfixTemplate(id uint16, fields ...efield) []byte {
	b := be16(be16(nil, id), uint16(len(fields)))
	for _, f := range fields {
		if f.pen == 0 {
			b = be16(be16(b, f.typ), f.length)
			continue
		}
		b = be32(be16(be16(b, f.typ|0x8000), f.length), f.pen)
	}
	return b
}

// The fields of the flows of these tests, before the vendors' (as v9Data fills them).
func plainFields() []efield {
	var fs []efield
	for _, f := range v9Fields {
		fs = append(fs, efield{typ: f.typ, length: f.length})
	}
	return fs
}

// timing is the Timing of samples (ms) as a probe keeps them: their sum, count and histogram.
func timing(ms ...float64) records.Timing {
	var t records.Timing
	for _, v := range ms {
		t.Sum += uint64(math.Round(v * 1000))
		t.Samples++
		t.Hist.Add(v / 1000)
	}
	return t
}

func sameTiming(t *testing.T, name string, got, want records.Timing) {
	t.Helper()
	if got.Sum != want.Sum || got.Samples != want.Samples || !sameHist(got.Hist, want.Hist) {
		t.Errorf("%s = %d µs over %d samples, histogram %v; want %d over %d, %v",
			name, got.Sum, got.Samples, got.Hist.Buckets(), want.Sum, want.Samples, want.Hist.Buckets())
	}
}

func sameHist(a, b histogram.Histogram) bool {
	x, y := a.Buckets(), b.Buckets()
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

// onlyRecord returns the one record stored, after checking it is valid.
func onlyRecord(t *testing.T, recs []records.Record) records.Record {
	t.Helper()
	if len(recs) != 1 {
		t.Fatalf("stored %d records, want 1: %+v", len(recs), recs)
	}
	if err := recs[0].Validate(now); err != nil {
		t.Fatal(err)
	}
	return recs[0]
}

// nProbe's fields: v9 types 57472 above their IPFIX elements of ntop's number 35632.
var nprobeFields = []efield{
	{109, 4, penNtop}, // RETRANSMITTED_IN_PKTS
	{110, 4, penNtop}, // RETRANSMITTED_OUT_PKTS
	{123, 4, penNtop}, // CLIENT_NW_LATENCY_MS
	{124, 4, penNtop}, // SERVER_NW_LATENCY_MS
	{125, 4, penNtop}, // APPL_LATENCY_MS
}

// asV9 returns fields as a v9 template names them: vendors' fields with their v9 types.
func asV9(fs []efield) []field {
	out := make([]field, len(fs))
	for i, f := range fs {
		switch f.pen {
		case 35632:
			f.typ += 57472 // CLIENT_NW_LATENCY_MS, 123, is 57595
		case 9:
			f.typ += 32768 // client network time sum, 9316, is 42084
		}
		out[i] = field{f.typ, f.length}
	}
	return out
}

// exported is a datagram of one data record, data, of a template of fields, as NetFlow v9
// and as IPFIX send it.
type exported struct {
	name     string
	datagram []byte
}

// inBoth returns the template of fields and the record data in a NetFlow v9 and an IPFIX
// datagram.
func inBoth(fields []efield, data []byte) []exported {
	return []exported{
		{"v9", v9(2, 6000, 1700000040, 0, set(0, templateRecord(256, asV9(fields)...)), set(256, data))},
		{"ipfix", ipfix(1700000040, 0, set(2, ipfixTemplate(256, fields...)), set(256, data))},
	}
}

// TestNProbe checks nProbe's fields, in NetFlow v9 and IPFIX: latencies (half round trips, in
// ms) become one round-trip sample each of client.rtt and server.rtt, the application latency
// one srt sample, each in µs with its histogram; retransmissions go to the side that sent them.
func TestNProbe(t *testing.T) {
	t.Parallel()
	fields := append(plainFields(), nprobeFields...)
	// The server's flow: retransmitted in (src->dst) are the server's.
	data := cat(v9Data(server4, client4, 443, 50000, 9000, 9, 4, 3), u32(5), u32(2), u32(12), u32(40), u32(180))
	for _, tc := range inBoth(fields, data) {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			recs, _ := collectAll(t, Limits{}, NetFlow, now, tc.datagram)
			r := onlyRecord(t, recs)
			if r.Client.IP != client4 || r.Server.Bytes != 9000 || r.Server.Retrans != 5 || r.Client.Retrans != 2 {
				t.Errorf("record %+v: want the server's 9000 bytes, 5 retransmissions of the server and 2 of the client", r)
			}
			sameTiming(t, "client.rtt", r.Client.RTT, timing(24))
			sameTiming(t, "server.rtt", r.Server.RTT, timing(80))
			sameTiming(t, "ct", r.CT, timing(104))
			sameTiming(t, "srt", r.SRT, timing(180))
			if r.DTT.Samples != 0 {
				t.Errorf("dtt %+v, want none", r.DTT)
			}
		})
	}
}

// TestNProbeNotMeasured checks that nProbe's 0 (not measured: no handshake seen, UDP) is no
// sample, and that sampled retransmissions are scaled like packets.
func TestNProbeNotMeasured(t *testing.T) {
	t.Parallel()
	fields := append(plainFields(), efield{34, 4, 0}) // samplingInterval
	fields = append(fields, nprobeFields...)
	data := cat(v9Data(client4, server4, 50000, 443, 100, 1, 3, 4), u32(10), u32(3), u32(0), u32(0), u32(0), u32(0))
	recs, _ := collectAll(t, Limits{}, NetFlow, now, v9(2, 6000, 1700000040, 0, set(0, templateRecord(256, asV9(fields)...)), set(256, data)))
	r := onlyRecord(t, recs)
	if r.Client.RTT.Samples != 0 || r.Server.RTT.Samples != 0 || r.CT.Samples != 0 || r.SRT.Samples != 0 {
		t.Errorf("record %+v: want no time samples", r)
	}
	if r.Client.Packets != 10 || r.Client.Retrans != 30 || r.Server.Retrans != 0 {
		t.Errorf("record %+v: want 10 packets and 30 retransmissions of the client (1 in 10 sampled)", r)
	}
}

// Cisco AVC's ART fields: v9 types 32768 above their IPFIX elements of Cisco's number 9.
var ciscoFields = []efield{
	{9268, 4, penCisco}, // client retransmitted packets
	{9270, 4, penCisco}, // server retransmitted packets
	{9282, 4, penCisco}, // new connections
	{9316, 4, penCisco}, // client network time sum
	{9317, 4, penCisco}, // max
	{9318, 4, penCisco}, // min
	{9319, 4, penCisco}, // server network time sum
	{9313, 4, penCisco}, // network time sum
	{9292, 4, penCisco}, // responses
	{9303, 4, penCisco}, // response time sum
	{9304, 4, penCisco}, // max
	{9305, 4, penCisco}, // min
	{9272, 4, penCisco}, // transactions
	{9273, 4, penCisco}, // total transaction time sum
}

// TestCiscoART checks Cisco AVC's ART fields in NetFlow v9 and IPFIX: sums (ms) over their
// counts become exact sums in µs and sample counts; a minimum and a maximum put two samples
// at their values and the others at the average of the rest; a sum without them leaves the
// histogram to the average; dtt is the total transaction time beyond the response time.
func TestCiscoART(t *testing.T) {
	t.Parallel()
	fields := append(plainFields(), ciscoFields...)
	data := cat(v9Data(client4, server4, 50000, 443, 1000, 10, 3, 4),
		u32(3), u32(1), // retransmissions: client 3, server 1
		u32(2), u32(30), u32(20), u32(10), // 2 connections: client network times 10 and 20 ms
		u32(100),                            // server network time: 100 ms over 2
		u32(130),                            // network time: 130 ms over 2
		u32(4), u32(400), u32(250), u32(50), // 4 responses: 50, 250 and two of 50 ms
		u32(4), u32(1000)) // 4 transactions of 250 ms on average
	for _, tc := range inBoth(fields, data) {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			recs, _ := collectAll(t, Limits{}, NetFlow, now, tc.datagram)
			r := onlyRecord(t, recs)
			if r.Client.Retrans != 3 || r.Server.Retrans != 1 {
				t.Errorf("retransmissions %d and %d, want 3 of the client and 1 of the server", r.Client.Retrans, r.Server.Retrans)
			}
			sameTiming(t, "client.rtt", r.Client.RTT, timing(10, 20))
			sameTiming(t, "server.rtt", r.Server.RTT, records.Timing{Sum: 100_000, Samples: 2})
			sameTiming(t, "ct", r.CT, records.Timing{Sum: 130_000, Samples: 2})
			sameTiming(t, "srt", r.SRT, timing(50, 250, 50, 50))
			sameTiming(t, "dtt", r.DTT, records.Timing{Sum: 600_000, Samples: 4})
			if p95, _ := r.Server.RTT.Buckets().Quantile(0.95); math.Abs(p95-0.05)/0.05 > histogram.RelativeError {
				t.Errorf("server.rtt p95 %g s, want the average, 0.05", p95)
			}
		})
	}
}

// TestCiscoARTOneConnection checks a record of one connection without counts: each sum is one
// sample, and both directions of the conversation merge into one record whose times add up.
func TestCiscoARTOneConnection(t *testing.T) {
	t.Parallel()
	fields := append(plainFields(), efield{9316, 2, penCisco}, efield{9319, 2, penCisco}, efield{9303, 2, penCisco})
	tpl := set(2, ipfixTemplate(256, fields...))
	up := cat(v9Data(client4, server4, 50000, 443, 1000, 10, 3, 4), u16(3), u16(40), u16(0))
	down := cat(v9Data(server4, client4, 443, 50000, 8000, 8, 4, 3), u16(5), u16(0), u16(90))
	recs, _ := collectAll(t, Limits{}, NetFlow, now, ipfix(1700000040, 0, tpl, set(256, cat(up, down))))
	r := onlyRecord(t, recs)
	if r.Client.Bytes != 1000 || r.Server.Bytes != 8000 {
		t.Errorf("record %+v: want both directions merged", r)
	}
	sameTiming(t, "client.rtt", r.Client.RTT, timing(3, 5))
	sameTiming(t, "server.rtt", r.Server.RTT, timing(40))
	sameTiming(t, "srt", r.SRT, timing(90))
}

// TestPerfFieldUnusable checks vendor fields the collector cannot use: a length no unsigned
// integer has, or a value too large for a record. They are ignored and counted, the rest of
// the record stored; a reduced-size encoding (3 bytes) is read.
func TestPerfFieldUnusable(t *testing.T) {
	t.Parallel()
	fields := append(plainFields(), efield{123, 16, penNtop}, efield{124, 3, penNtop}, efield{125, 8, penNtop},
		efield{9316, 0, penCisco})
	data := cat(v9Data(client4, server4, 50000, 443, 100, 1, 3, 4), make([]byte, 16), []byte{0, 0, 7}, u64(math.MaxUint64))
	for _, tc := range inBoth(fields, data) {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			recs, c := collectAll(t, Limits{}, NetFlow, now, tc.datagram)
			r := onlyRecord(t, recs)
			if r.Client.Bytes != 100 || r.Client.RTT.Samples != 0 || r.CT.Samples != 0 || r.SRT.Samples != 0 {
				t.Errorf("record %+v: want the flow's 100 bytes, no client.rtt, ct or srt", r)
			}
			sameTiming(t, "server.rtt", r.Server.RTT, timing(14))
			metric(t, c, `collector_fields_ignored_total{exporter="192.0.2.1",protocol="netflow"} 3`)
			if st := c.Status(now); len(st.Exporters) != 1 || st.Exporters[0].FieldsIgnored != 3 {
				t.Errorf("status %+v: want one exporter with 3 fields ignored", st.Exporters)
			}
		})
	}
}

// TestTimesBounds checks the Timing of samples at the bounds of the vendors' 32-bit values,
// and minimums and maximums inconsistent with their sum (the histogram is then left to the
// average), and that nProbe's half round trips past 32 bits are ignored and counted.
func TestTimesBounds(t *testing.T) {
	t.Parallel()
	const max32 = math.MaxUint32
	for _, tc := range []struct {
		m    msTimes
		hist uint64 // samples in the histogram
	}{
		{msTimes{Sum: max32, N: 1}, 1},
		{msTimes{Sum: max32, N: max32}, 0},                      // no minimum or maximum
		{msTimes{Sum: 30, N: 3, Lo: 10, Hi: 10}, 3},             // all known
		{msTimes{Sum: 30, N: 3, Lo: 20, Hi: 5}, 0},              // minimum above maximum
		{msTimes{Sum: 30, N: 3, Lo: 1, Hi: max32}, 0},           // maximum above the sum
		{msTimes{Sum: 30, N: 2, Lo: 10, Hi: 10}, 0},             // two samples not adding up
		{msTimes{Sum: 30, N: 4, Lo: 1, Hi: 2}, 0},               // the rest above the maximum
		{msTimes{Sum: 1000, N: 3, Lo: max32 / 2, Hi: max32}, 0}, // minimum and maximum past the sum
	} {
		got := tc.m.timing()
		r := records.Record{Time: 1, Application: "x", Client: records.Endpoint{IP: client4}, Server: records.Endpoint{IP: server4}, SRT: got}
		if got.Sum != uint64(tc.m.Sum)*1000 || got.Samples != uint64(tc.m.N) || got.Hist.Count() != tc.hist || r.Validate(now) != nil {
			t.Errorf("%+v made %+v (%v); want %d in the histogram", tc.m, got, r.Validate(now), tc.hist)
		}
	}
	var p perfFields
	if !p.add(slotNtopClient, u32(math.MaxUint32)) || !p.add(slotNtopAppl, u32(math.MaxUint32)) || p.add(slotNtopServer, u64(1<<32)) {
		t.Fatal("32-bit values refused, or a larger one kept")
	}
	if out, ignored := p.perf(); ignored != 1 || out.ClientRTT.N != 0 || out.SRT.Sum != math.MaxUint32 {
		t.Errorf("perf() = %+v, %d ignored; want the client latency's round trip ignored, the application latency kept", out, ignored)
	}
	var sum records.Timing
	addTiming(&sum, timing(10))
	addTiming(&sum, records.Timing{Sum: 40_000, Samples: 2})
	sameTiming(t, "sum", sum, records.Timing{Sum: 50_000, Samples: 3, Hist: timing(10, 20, 20).Hist})
	full := records.Timing{Sum: records.MaxCount, Samples: 1}
	addTiming(&full, timing(1))
	if full.Samples != 1 {
		t.Errorf("adding to a full sum gave %+v, want it unchanged", full)
	}
}

// A Cisco AVC record keyed by connection: client and server addresses, the server's port, what
// each sent, times, and the client network time over new connections.
var ciscoConnFields = []efield{
	{12236, 4, penCisco}, {12237, 4, penCisco}, {12241, 2, penCisco}, {4, 1, 0},
	{8338, 8, penCisco}, {8337, 8, penCisco}, {9265, 8, penCisco}, {9266, 8, penCisco},
	{152, 8, 0}, {153, 8, 0},
	{9316, 4, penCisco}, {9282, 4, penCisco}, {9268, 4, penCisco},
}

func ciscoConnData(start, end uint64) []byte {
	c, s := client4.As4(), server4.As4()
	return cat(c[:], s[:], u16(443), []byte{6}, u64(1200), u64(90_000), u64(12), u64(70),
		u64(start), u64(end), u32(60), u32(3), u32(2))
}

// TestCiscoConnection checks Cisco AVC's records keyed by connection, in NetFlow v9 and IPFIX:
// the client and server they name keep their roles (the client's port unknown, 0, would
// otherwise make it the server), each side's bytes and packets are its own and spread over
// the minutes of the connection, and the measures go to the first minute.
func TestCiscoConnection(t *testing.T) {
	t.Parallel()
	data := ciscoConnData(1699999950_000, 1700000010_000) // 10 s of one minute, 10 of the next
	for _, tc := range inBoth(ciscoConnFields, data) {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			recs, _ := collectAll(t, Limits{}, NetFlow, now, tc.datagram)
			if len(recs) != 2 {
				t.Fatalf("stored %+v, want a record for each of two minutes", recs)
			}
			if recs[0].Time > recs[1].Time {
				recs[0], recs[1] = recs[1], recs[0]
			}
			for _, r := range recs {
				if err := r.Validate(now); err != nil || r.Client.IP != client4 || r.Client.Port != 0 || r.Server.IP != server4 ||
					r.Server.Port != 443 || r.Application != "https" {
					t.Errorf("record %+v (%v): want client 10.0.0.5, server 93.184.216.34:443, https", r, err)
				}
			}
			if cb, cp, sb, sp := sum(recs); cb != 1200 || cp != 12 || sb != 90_000 || sp != 70 {
				t.Errorf("records add up to client %d bytes %d packets, server %d bytes %d packets; want 1200, 12, 90000, 70", cb, cp, sb, sp)
			}
			if recs[0].Client.Bytes != 600 || recs[0].Server.Bytes != 45_000 {
				t.Errorf("first minute: client %d bytes, server %d; want half of each", recs[0].Client.Bytes, recs[0].Server.Bytes)
			}
			sameTiming(t, "client.rtt", recs[0].Client.RTT, records.Timing{Sum: 60_000, Samples: 3})
			if recs[0].Client.Retrans != 2 || recs[1].Client.RTT.Samples != 0 || recs[1].Client.Retrans != 0 {
				t.Errorf("records %+v: want the measures in the first minute only", recs)
			}
		})
	}
}
