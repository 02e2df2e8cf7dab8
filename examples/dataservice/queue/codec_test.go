package queue_test

import (
	"bytes"
	"errors"
	"net/netip"
	"reflect"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/histogram"
	"github.com/fnapi/fnapi/examples/dataservice/queue"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/records/recordstest"
)

// fullRecords are records with every field set, the capture probe's and the context's too.
func fullRecords() []records.Record {
	recs := append(recordstest.CaptureBatch(3, 1_700_000_000), recordstest.ContextBatch(3, 1_700_000_060)...)
	recs = append(recs, recordstest.Batch(2, 1_600_000_000)...)
	var h histogram.Histogram
	h.Add(0.002)
	h.Add(0.5)
	r := &recs[0]
	r.Exporter = netip.MustParseAddr("2001:db8::9")
	r.InIf, r.OutIf, r.Resets = 1<<32-1, 7, records.MaxCount
	r.Client.Place = records.Place{Zone: "lan", ASN: 64500, ASName: "Example AS", Country: "FR"}
	r.Server.RTT = records.Timing{Sum: 2500, Samples: 2, Hist: h}
	r.ServerName, r.ExporterName = "www.example.com", "edge-1"
	r.InIfName, r.InIfAlias, r.OutIfName, r.OutIfAlias = "eth0", "uplink", "eth1", "lan ✓"
	return recs
}

// TestCodecRoundTrip checks that Decode gives back every field Encode was given.
func TestCodecRoundTrip(t *testing.T) {
	t.Parallel()
	recs := fullRecords()
	got, err := queue.Decode(queue.Encode(nil, recs))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, recs) {
		t.Fatalf("decoded\n%+v\nwant\n%+v", got, recs)
	}
	if got, err := queue.Decode(queue.Encode(nil, nil)); err != nil || len(got) != 0 {
		t.Fatalf("empty batch: %v, %v", got, err)
	}
}

// TestDecodeRefuses checks that Decode refuses another version, a truncated encoding, trailing
// bytes and a count the bytes cannot hold, with ErrEncoding.
func TestDecodeRefuses(t *testing.T) {
	t.Parallel()
	good := queue.Encode(nil, fullRecords())
	for name, b := range map[string][]byte{
		"empty":      nil,
		"version 2":  append([]byte{2}, good[1:]...),
		"truncated":  good[:len(good)-1],
		"trailing":   append(bytes.Clone(good), 0),
		"huge count": {1, 0xff, 0xff, 0xff, 0xff, 0x0f},
	} {
		if recs, err := queue.Decode(b); !errors.Is(err, queue.ErrEncoding) {
			t.Errorf("%s: %d records, %v; want ErrEncoding", name, len(recs), err)
		}
	}
}

// FuzzDecode checks that Decode never panics, and that what it accepts encodes back to the
// same bytes.
func FuzzDecode(f *testing.F) {
	f.Add(queue.Encode(nil, fullRecords()))
	f.Add(queue.Encode(nil, recordstest.Batch(3, 1)))
	f.Add([]byte{1, 0})
	f.Add([]byte{1, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		recs, err := queue.Decode(b)
		if err != nil {
			return
		}
		if again, err := queue.Decode(queue.Encode(nil, recs)); err != nil || !reflect.DeepEqual(again, recs) {
			t.Fatalf("decoded %+v; encoded again: %+v, %v", recs, again, err)
		}
	})
}
