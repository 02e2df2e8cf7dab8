package collect

import (
	"runtime"
	"testing"
)

// What decoding one datagram may allocate (the heap goflow2 and the decoders take, garbage once
// the flows are mapped): maxHeapPerByte bytes a byte of the datagram, and maxHeapPerDatagram
// beside. The worst shapes the bounds let through take about 100 bytes a byte (options data of
// four 1-byte fields; addresses and a 1-byte nProbe or Cisco AVC time, whose flow holds 112
// bytes of measures); the template of 4,095 zero-length fields that the bounds refuse made
// 190 KB of every byte.
const (
	maxHeapPerByte     = 128
	maxHeapPerDatagram = 64 << 10
)

// heapOf returns the bytes of heap fn allocates (the process's, so that it must run alone).
func heapOf(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// amplificationSeeds are pairs of datagrams, templates then data: the attack of issue 23 and
// the worst shapes the bounds let through, each with 60 KB of data.
func amplificationSeeds() [][2][]byte {
	data := make([]byte, 60_000)
	for i := range data {
		data[i] = byte(i)
	}
	attack := make([]field, 0, 4096)
	for range 4095 {
		attack = append(attack, field{1, 0})
	}
	attack = append(attack, field{1, 1})
	ones, vars := make([]field, 256), make([]field, 256)
	for i := range ones {
		ones[i], vars[i] = field{1, 1}, field{1, 0xffff}
	}
	one := field{1, 1}
	var sets [][]byte
	for range 7000 {
		sets = append(sets, set(300, []byte{1, 2, 3, 4}))
	}
	var samples [][]byte
	for range 1000 {
		body := cat(u32(1), u32(1), u32(1), u32(1), u32(0), u32(1), u32(1), u32(1000))
		samples = append(samples, cat(u32(1), u32(uint32(len(body))), body))
	}
	return [][2][]byte{
		{v9(1, 0, 0, 0, set(0, templateRecord(256, attack...))), v9(1, 0, 0, 0, set(256, data[:3000]))},
		{v9(1, 0, 0, 0, set(0, templateRecord(256, attack...))), v9(1, 0, 0, 0, set(256, data))},
		{v9(1, 0, 0, 0, set(0, templateRecord(256, one))), v9(1, 0, 0, 0, set(256, data))},
		{v9(1, 0, 0, 0, set(0, templateRecord(256, ones...))), v9(1, 0, 0, 0, set(256, data))},
		{ipfix(0, 0, set(2, templateRecord(256, vars...))), ipfix(0, 0, set(256, data))},
		{v9(1, 0, 0, 0, set(0, templateRecord(256, one, one, one, one))), v9(1, 0, 0, 0, set(256, data))},
		{v9(1, 0, 0, 0, set(0, templateRecord(256, field{8, 4}, field{12, 4}))), v9(1, 0, 0, 0, set(256, data))},
		// Addresses and one vendor field: a measure (and its histogram) every 9 bytes.
		{v9(1, 0, 0, 0, set(0, templateRecord(256, field{8, 4}, field{12, 4}, field{57595, 1}))), v9(1, 0, 0, 0, set(256, data))},
		{ipfix(0, 0, set(2, ipfixTemplate(256, efield{8, 4, 0}, efield{12, 4, 0}, efield{9316, 1, penCisco}, efield{9319, 1, penCisco},
			efield{9303, 1, penCisco}, efield{9273, 1, penCisco}))), ipfix(0, 0, set(256, data))},
		{ipfix(0, 0, set(2, ipfixTemplate(256, efield{12236, 4, penCisco}, efield{12237, 4, penCisco}, efield{9316, 1, penCisco}))),
			ipfix(0, 0, set(256, data))}, // Cisco's connection records
		{v9(1, 0, 0, 0, set(1, v9OptionsTemplate(300, []field{one}, []field{one, one, one}))), v9(1, 0, 0, 0, set(300, data))},
		{ipfix(0, 0, set(3, ipfixOptionsTemplate(300, []field{one}, []field{one, one, one}))), ipfix(0, 0, set(300, data))},
		{v9(1, 0, 0, 0, set(1, v9OptionsTemplate(300, []field{one}, []field{one, one, one}))), v9(1, 0, 0, 0, sets...)},
		{v9(1, 0, 0, 0, set(0, cat(u16(256), u16(65535), u32(0)))), v9(1, 0, 0, 0, set(0, cat(u16(256), u16(16000))))},
		{ipfix(0, 0, set(3, cat(u16(256), u16(65535), u16(65535)))), nil},
		// sFlow: 1,000 flow samples claiming 1,000 records each, holding none.
		{nil, cat(u32(5), u32(1), []byte{192, 0, 2, 1}, u32(0), u32(1), u32(1000), u32(1000), cat(samples...))},
	}
}

// FuzzAmplification feeds two datagrams to the NetFlow and sFlow decoders of one exporter,
// templates then data (and the data again), and fails when decoding one of them allocates more
// than maxHeapPerByte a byte beside maxHeapPerDatagram: it fuzzes for the ratio of memory to
// input, not only for panics.
func FuzzAmplification(f *testing.F) {
	for _, s := range amplificationSeeds() {
		f.Add(s[0], s[1])
	}
	limits := Limits{}
	limits.defaults()
	f.Fuzz(func(t *testing.T, templates, data []byte) {
		ex := &exporter{addr: exporterA}
		for i, b := range [][]byte{templates, data, data} {
			var nf, sf []Flow
			heap := heapOf(func() {
				ts := templateStore{ex: ex, now: now, limits: &limits}
				nf, _ = decodeNetFlow(b, &ts, nil)
				sf, _ = decodeSFlow(b, now.UnixMilli(), nil)
			})
			if heap > uint64(maxHeapPerByte*len(b)+maxHeapPerDatagram) {
				t.Fatalf("datagram %d of %d bytes (%d flows) allocated %d bytes: %.0f a byte", i, len(b), len(nf)+len(sf), heap, float64(heap)/float64(max(len(b), 1)))
			}
		}
	})
}

// TestV5CountBeyondDatagram checks that a NetFlow v5 datagram counting more records than it
// holds is a decode error, not the records it holds plus flows of zeros for the rest (goflow2
// allocated and returned the count, up to 65,535 from 24 bytes).
func TestV5CountBeyondDatagram(t *testing.T) {
	t.Parallel()
	d := v5(10_000, 1700000040, 0, v5Record{src: client4, dst: server4, srcPort: 50000, dstPort: 443, proto: 6, bytes: 1, packets: 1})
	d[3] = 30 // the count
	recs, c := collectAll(t, Limits{}, NetFlow, now, d)
	if len(recs) != 0 {
		t.Errorf("stored %d records, want none", len(recs))
	}
	metric(t, c, `collector_decode_errors_total{exporter="192.0.2.1",protocol="netflow"} 1`)
}
