package records_test

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// TestParseRecordManyMembers parses records of about 256 KiB made of many members or elements
// where one, a few or none are expected (ingest takes up to 64 MB of them): each is read
// in place, so that its parse allocates a bounded number of times, not once or more a member
// (which made a record of 64 MB cost about 1 GB of heap), and answers as it always did.
//
// Not parallel: testing.AllocsPerRun.
func TestParseRecordManyMembers(t *testing.T) {
	const size = 1 << 18
	// many repeats s(i) joined by sep, about size bytes
	many := func(sep string, s func(i int) string) string {
		var b strings.Builder
		for i := 0; b.Len() < size; i++ {
			if i > 0 {
				b.WriteString(sep)
			}
			b.WriteString(s(i))
		}
		return b.String()
	}
	// unknown members, in no order of their names: the error names the first by name, x0
	unknown := many(",", func(i int) string { return `"x` + strconv.FormatInt(int64(i*7919%size), 36) + `":0` })
	const base = `"time":1700000000,"protocol":"udp","client":{"ip":"10.0.0.1"},"server":{"ip":"10.0.0.2","port":53}`
	for _, c := range []struct {
		name, record, err string
	}{
		{"unknown members", `{` + base + `,` + unknown + `}`, "records: x0: unknown field"},
		{"unknown members, then invalid JSON", `{` + base + `,` + unknown + `,}`, "records: invalid JSON object"},
		{"one member repeated", `{` + base + `,` + many(",", func(int) string { return `"resets":1` }) + `}`, ""},
		{"unknown members of a side", `{"time":1700000000,"protocol":"udp","server":{"ip":"10.0.0.2"},"client":{"ip":"10.0.0.1",` +
			unknown + `}}`, "records: client.x0: unknown field"},
		{"unknown members of a layer's", `{` + base + `,"layer":"dns","dns":{"qname":"a.example",` + unknown + `}}`,
			"records: dns.x0: unknown field"},
		{"pairs of a histogram", `{` + base + `,"srt":0.1,"srt_samples":1,"srt_hist":[[1,1],` + many(",", func(int) string { return `[0,1]` }) + `]}`,
			"records: srt_hist: bucket indexes not increasing"},
		{"a pair of a histogram", `{` + base + `,"srt":0.1,"srt_samples":1,"srt_hist":[[1,` + many(",", func(int) string { return `1` }) + `]]}`,
			"records: srt_hist: not a list of [index, count] pairs"},
	} {
		raw := json.RawMessage(c.record)
		var err error
		allocs := testing.AllocsPerRun(1, func() { _, err = records.ParseRecord(raw, testNow) })
		if got := errString(err); got != c.err {
			t.Errorf("%s: %s, want %s", c.name, got, c.err)
		}
		if allocs > 100 {
			t.Errorf("%s: a record of %d bytes parsed in %.0f allocations, want at most 100", c.name, len(raw), allocs)
		}
		if _, err := records.ParseBatch([]json.RawMessage{bytes.Clone(raw)}, testNow); errString(err) != strings.Replace(c.err, "records: ", "records: record 0: ", 1) {
			t.Errorf("%s: in a batch: %v", c.name, err)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
