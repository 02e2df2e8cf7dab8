package collect

import (
	"errors"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// FuzzDatagram feeds any bytes to the NetFlow and sFlow decoders, twice to one exporter (so
// that templates of the first pass decode data of the second), and maps every flow to records:
// nothing may panic or loop, a flow's records must add up to its counts, their measures
// (nProbe's and Cisco AVC's fields) and the records of their layers must be valid, and the datagram is of one kind of each
// protocol at most.
func FuzzDatagram(f *testing.F) {
	tpl := set(0, templateRecord(256, v9Fields...))
	data := set(256, v9Data(client4, server4, 50000, 443, 100, 1, 3, 4))
	for _, seed := range [][]byte{
		v5(10_000, 1700000040, 1<<14|100, v5Record{src: client4, dst: server4, srcPort: 1, dstPort: 443, proto: 6, bytes: 7, packets: 1}),
		v9(1, 6000, 1700000040, 9, set(1, v9OptionsTemplate(300, []field{{1, 4}}, []field{{34, 4}})), set(300, cat(u32(0), u32(10))), tpl, data),
		ipfix(1700000040, 5, set(3, ipfixOptionsTemplate(400, []field{{149, 4}}, []field{{305, 4}, {306, 4}, {160, 8}})),
			set(400, cat(u32(5), u32(1), u32(99), u64(1699990000_000))), set(2, templateRecord(500, field{8, 4}, field{12, 4}, field{22, 4}, field{21, 4}, field{1, 0xffff})),
			set(500, cat(u32(1), u32(2), u32(3), u32(4), []byte{2, 9, 9}))),
		sflowDatagram(sflowSample{rate: 512, in: 1, out: 2, header: frame(client4, server4, 6, 51234, 443, 1500)}),
		v9(0, 0, 0, 0, set(0, templateRecord(256, field{1, 0}))),
		v9(2, 6000, 1700000040, 0, set(0, templateRecord(256, asV9(append(plainFields(), nprobeFields...))...)),
			set(256, cat(v9Data(server4, client4, 443, 50000, 9000, 9, 4, 3), u32(5), u32(2), u32(12), u32(40), u32(180)))),
		ipfix(1700000040, 0, set(2, ipfixTemplate(256, append(plainFields(), ciscoFields...)...)),
			set(256, cat(v9Data(client4, server4, 50000, 443, 1000, 10, 3, 4), u32(3), u32(1), u32(2), u32(30), u32(20), u32(10),
				u32(100), u32(130), u32(4), u32(400), u32(250), u32(50), u32(4), u32(1000)))),
		ipfix(1700000040, 0, set(2, ipfixTemplate(256, append(plainFields(), efield{123, 16, penNtop}, efield{9316, 0, penCisco}, efield{9317, 0xffff, penCisco})...)),
			set(256, cat(v9Data(client4, server4, 50000, 443, 100, 1, 3, 4), make([]byte, 16), []byte{9, 1, 2, 3, 4, 5, 6, 7, 8, 9}))),
		ipfix(1700000040, 0, set(2, ipfixTemplate(256, ciscoConnFields...)), set(256, ciscoConnData(1699999950_000, 1700000010_000))),
		ipfix(1700000040, 0, set(2, cat(ipfixTemplate(256, append(plainFields(), nprobeHTTPFields...)...),
			ipfixTemplate(257, append(plainFields(), nprobeDNSFields...)...), ipfixTemplate(258, append(plainFields(), ciscoHTTPFields...)...))),
			set(256, cat(v9Data(client4, server4, 50000, 80, 900, 6, 3, 4), varlen("http://A.example:1/u/1?x"), varlen("GET"), u16(200), varlen("[::1]:80"), u32(3))),
			set(257, cat(v9Data(client4, server4, 50001, 53, 80, 1, 3, 4), varlen("Q.example."), []byte{1}, []byte{0})),
			set(258, cat(v9Data(client4, server4, 50002, 80, 80, 1, 3, 4), varlen("\xffH\x01:80"), varlen("/a\x00\x00\x01/b?c\x00\x00\x02")))),
		v9(2, 6000, 1700000040, 0, set(0, templateRecord(256, asV9(append(plainFields(), efield{180, 8, penNtop}, efield{187, 4, penNtop}, efield{208, 2, penNtop}, efield{205, 3, penNtop}))...)),
			set(256, cat(v9Data(client4, server4, 50000, 80, 900, 6, 3, 4), []byte("/x/1\x00\x00\x00\x00"), []byte("H\x00\x00\x00"), u16(0xffff), []byte("a.\x00")))),
	} {
		f.Add(seed)
	}
	limits := Limits{MaxTemplates: 8, MaxTemplateFields: 64}
	limits.defaults()
	f.Fuzz(func(t *testing.T, b []byte) {
		ex := &exporter{addr: exporterA}
		at := time.Unix(1700000100, 0)
		var flows []Flow
		for range 2 {
			ts := templateStore{ex: ex, now: at, limits: &limits}
			flows, _ = decodeNetFlow(b, &ts, flows[:0])
			flows, _ = decodeSFlow(b, at.UnixMilli(), flows)
			for _, fl := range flows {
				recs := appendRecords(nil, &fl, ex.addr, 60)
				if len(recs) > maxSpread+maxURIs+1 { // its slices, and its layer's records

					t.Fatalf("flow %+v gave %d records", fl, len(recs))
				}
				cb, cp, sb, sp := sum(recs)
				if cb+sb != fl.Bytes+fl.RevBytes || cp+sp != fl.Packets+fl.RevPackets {
					t.Fatalf("flow %+v: records add up to %d bytes, %d packets", fl, cb+sb, cp+sp)
				}
				for _, r := range recs {
					var re *records.RecordError
					if err := r.Validate(at.AddDate(1000, 0, 0)); errors.As(err, &re) && re.Field != "time" {
						t.Fatalf("flow %+v made an invalid record: %v", fl, err)
					}
				}
			}
		}
		// A datagram is of one NetFlow kind at most, and of one sFlow kind at most.
		ex.markKind(NetFlow, b)
		ex.markKind(SFlow, b)
		if p := ex.protocols(); len(p) > 2 {
			t.Fatalf("one datagram marked %v", p)
		}
		if ex.nf.fields > limits.MaxTemplateFields || len(ex.nf.templates) > limits.MaxTemplates {
			t.Fatalf("%d templates, %d fields kept", len(ex.nf.templates), ex.nf.fields)
		}
	})
}
