package queue_test

import (
	"bytes"
	"errors"
	"net/netip"
	"os"
	"reflect"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/histogram"
	"github.com/fnapi/fnapi/examples/dataservice/queue"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/records/recordstest"
)

// fullRecords are records with every field set: the capture probe's, the context's, the
// routes' and the layers' too (TestFullRecordsSetEveryField).
func fullRecords() []records.Record {
	routes := recordstest.RouteBatch(5, 1_700_000_120)
	var h histogram.Histogram
	h.Add(0.001)
	h.Add(3)
	for _, t := range []*records.Timing{&routes[0].Client.RTT, &routes[0].CT, &routes[0].DTT} {
		*t = records.Timing{Sum: 3_001_000, Samples: 2, Hist: h}
	}
	recs := append(v1Records(), routes...)
	return append(recs, recordstest.LayerBatch(1_700_000_180)...)
}

// v1Records are the records of testdata/batch-v1.bin, which version 1 of the encoding wrote:
// fullRecords as they were before the routes and the layers.
func v1Records() []records.Record {
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

// TestFullRecordsSetEveryField checks that each field of records.Record (and of the structs
// it holds) is set in one of fullRecords at least, so that TestCodecRoundTrip fails for a field
// that the encoding forgets.
func TestFullRecordsSetEveryField(t *testing.T) {
	t.Parallel()
	set := map[string]bool{}
	var walk func(path string, v reflect.Value)
	walk = func(path string, v reflect.Value) {
		if v.Kind() == reflect.Struct && v.Type().PkgPath() == reflect.TypeFor[records.Record]().PkgPath() {
			for i := range v.NumField() {
				walk(path+"."+v.Type().Field(i).Name, v.Field(i))
			}
			return
		}
		set[path] = set[path] || !v.IsZero()
	}
	for _, r := range fullRecords() {
		walk("Record", reflect.ValueOf(r))
	}
	for path, ok := range set {
		if !ok {
			t.Errorf("no record of fullRecords sets %s", path)
		}
	}
}

// TestDecodeVersion1 checks that batches of the previous version, which may wait in the stream
// when a node is upgraded, decode as they were written.
func TestDecodeVersion1(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/batch-v1.bin")
	if err != nil {
		t.Fatal(err)
	}
	got, err := queue.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if want := v1Records(); !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded\n%+v\nwant\n%+v", got, want)
	}
}

// TestDecodeRefuses checks that Decode refuses another version, a truncated encoding, trailing
// bytes and a count the bytes cannot hold, with ErrEncoding.
func TestDecodeRefuses(t *testing.T) {
	t.Parallel()
	good := queue.Encode(nil, fullRecords())
	for name, b := range map[string][]byte{
		"empty":      nil,
		"version 0":  append([]byte{0}, good[1:]...),
		"version 3":  append([]byte{3}, good[1:]...),
		"truncated":  good[:len(good)-1],
		"trailing":   append(bytes.Clone(good), 0),
		"huge count": {1, 0xff, 0xff, 0xff, 0xff, 0x0f},
		"too many":   queue.Encode(nil, make([]records.Record, queue.MaxBatchRecords+1)),
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
	if b, err := os.ReadFile("testdata/batch-v1.bin"); err == nil {
		f.Add(b)
	}
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
