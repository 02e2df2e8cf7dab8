package capture_test

import (
	"encoding/binary"
	"net/netip"
	"strconv"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/capture"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// defaultDNSNames is Config.MaxDNSNames's default, the distinct query names of an hour.
const defaultDNSNames = 10_000

// dnsFeed sends DNS queries (one question, type A) from a client to a resolver that never
// answers them, 2 ms apart (500 a second, so that the queries waiting for their answer stay
// below Config.MaxDNSQueries).
type dnsFeed struct {
	tbl *capture.Table
	now int64 // ns
	id  uint16
}

func (f *dnsFeed) query(name string) {
	msg := binary.BigEndian.AppendUint16(nil, f.id)
	msg = append(msg, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0)
	for len(name) > 0 {
		label := name
		for i := range len(name) {
			if name[i] == '.' {
				label = name[:i]
				break
			}
		}
		msg = append(append(msg, byte(len(label))), label...)
		name = name[min(len(name), len(label)+1):]
	}
	msg = append(msg, 0, 0, 1, 0, 1)
	f.now += 2e6
	p := capture.Packet{Time: f.now, Src: netip.MustParseAddr("10.0.0.1"), Dst: netip.MustParseAddr("10.0.0.53"),
		Protocol: capture.ProtoUDP, SrcPort: 1024 + f.id%60000, DstPort: 53, Payload: msg, PayloadLen: len(msg), Len: 28 + len(msg)}
	f.tbl.Packet(&p)
	f.id++
}

// TestDNSQNamesBoundedPerHour sends, in one hour, queries of more distinct names than the
// records of an hour may carry, none answered (spoofed queries need no answer): past the
// bound a record's name reads capture.HTTPOther, a name already among the hour's keeps its
// record's name, and the next hour has room again.
func TestDNSQNamesBoundedPerHour(t *testing.T) {
	t.Parallel()
	const extra = 50
	var recs []capture.Record
	tbl := capture.NewTable(capture.Config{}, func(r capture.Record) {
		if r.Layer == records.LayerDNS {
			recs = append(recs, r)
		}
	})
	f := &dnsFeed{tbl: tbl, now: 1700000000e9} // 1,200 s into an hour
	for i := range defaultDNSNames + extra {
		f.query("r" + strconv.Itoa(i) + ".example")
	}
	f.query("r0.example") // among the hour's names
	f.query("")           // the root
	f.now = (1700000000/3600 + 1) * 3600e9
	f.query("next-hour.example")
	tbl.Flush()
	n := defaultDNSNames + extra + 3
	if len(recs) != n {
		t.Fatalf("%d DNS records, want %d", len(recs), n)
	}
	names, other := map[string]bool{}, 0
	for _, r := range recs[:defaultDNSNames+extra] {
		if r.DNS.QName == capture.HTTPOther {
			other++
		} else {
			names[r.DNS.QName] = true
		}
	}
	if len(names) != defaultDNSNames || other != extra {
		t.Errorf("%d distinct names and %d records of %q in one hour, want %d and %d",
			len(names), other, capture.HTTPOther, defaultDNSNames, extra)
	}
	for i, want := range []string{"r0.example", "", "next-hour.example"} {
		if got := recs[n-3+i].DNS.QName; got != want {
			t.Errorf("query of %q: record of %q", want, got)
		}
	}
}

// TestDNSNamesLeftOut counts the records whose name was left out, with Config.MaxDNSNames
// set: the names count as the records are made (an answered query's at its answer, an
// unanswered one's at its timeout), and the root is no name to bound.
func TestDNSNamesLeftOut(t *testing.T) {
	t.Parallel()
	if got := capture.NewTable(capture.Config{}, nil).Config().MaxDNSNames; got != defaultDNSNames {
		t.Errorf("MaxDNSNames defaults to %d, want %d", got, defaultDNSNames)
	}
	var got []string
	tbl := capture.NewTable(capture.Config{MaxDNSNames: 2}, func(r capture.Record) {
		if r.Layer == records.LayerDNS {
			got = append(got, r.DNS.QName)
		}
	})
	f := &dnsFeed{tbl: tbl, now: 1700000000e9}
	for _, name := range []string{"a.example", "", "b.example", "c.example", "a.example", "d.example"} {
		f.query(name)
	}
	// an answer to the last query: its record comes first, the others' at Flush
	ans := binary.BigEndian.AppendUint16(nil, f.id-1)
	ans = append(ans, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0, 1, 'd', 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 0, 0, 1, 0, 1)
	p := capture.Packet{Time: f.now + 1e6, Src: netip.MustParseAddr("10.0.0.53"), Dst: netip.MustParseAddr("10.0.0.1"),
		Protocol: capture.ProtoUDP, SrcPort: 53, DstPort: 1024 + (f.id-1)%60000, Payload: ans, PayloadLen: len(ans), Len: 28 + len(ans)}
	tbl.Packet(&p)
	tbl.Flush()
	want := []string{"d.example", "a.example", "", capture.HTTPOther, capture.HTTPOther, "a.example"}
	if len(got) != len(want) {
		t.Fatalf("records of %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("records of %q, want %q", got, want)
		}
	}
	if st := tbl.Stats(); st.DNSNamesLeftOut != 2 || st.DNSRecords != 6 {
		t.Errorf("%d names left out of %d records, want 2 of 6", st.DNSNamesLeftOut, st.DNSRecords)
	}
}
