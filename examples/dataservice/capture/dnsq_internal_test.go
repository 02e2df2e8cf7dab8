package capture

import (
	"bytes"
	"net/netip"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records"
	"golang.org/x/net/dns/dnsmessage"
)

// TestQNameForm reads query names as records carry them: lower case, without the final
// dot, odd bytes escaped, cut at MaxQNameLen.
func TestQNameForm(t *testing.T) {
	t.Parallel()
	label := func(s string) []byte { return append([]byte{byte(len(s))}, s...) }
	long := bytes.Repeat([]byte{0xff}, 63)
	for _, c := range []struct {
		wire []byte
		want string
	}{
		{append(append(label("WWW"), label("Example")...), 0), "www.example"},
		{[]byte{0}, ""},
		{append(append(label("a.b\\c"), label("x y")...), 0), `a\.b\\c.x\032y`},
		{append(append(append(append(label(string(long)), label(string(long))...), label(string(long))...), label(string(long[:61]))...), 0),
			strings.Repeat(`\255`, 63)}, // cut before the escape past MaxQNameLen
	} {
		msg := append(make([]byte, 12), c.wire...)
		got, end := appendQName(make([]byte, 0, maxQName), msg, 12)
		if string(got) != c.want || end != len(msg) {
			t.Errorf("%q: %q (end %d), want %q (end %d)", c.wire, got, end, c.want, len(msg))
		}
	}
	if _, end := appendQName(nil, append(make([]byte, 12), 0xc0, 12), 12); end != -1 {
		t.Errorf("a name pointing to itself: end %d, want -1", end)
	}
}

// FuzzDNSQueries feeds arbitrary DNS messages to the per-query decoding, over UDP and TCP
// (each input: a kind byte, a length byte, the bytes, repeated): it must never panic, keep at
// most MaxDNSQueries queries, and emit records within the records' limits, the name in the
// form records carry.
func FuzzDNSQueries(f *testing.F) {
	msg := func(id uint16, resp bool, rcode dnsmessage.RCode) []byte {
		b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: id, Response: resp, RCode: rcode})
		b.StartQuestions()
		b.Question(dnsmessage.Question{Name: dnsmessage.MustNewName("Fuzz.Example."), Type: dnsmessage.TypeAAAA, Class: dnsmessage.ClassINET})
		m, _ := b.Finish()
		return m
	}
	item := func(kind byte, b []byte) []byte { return append([]byte{kind, byte(len(b))}, b...) }
	tcpMsg := func(b []byte) []byte { return append([]byte{0, byte(len(b))}, b...) }
	f.Add(append(item(0, msg(1, false, 0)), item(1, msg(1, true, 3))...))
	f.Add(append(item(2, tcpMsg(msg(2, false, 0))), item(3, tcpMsg(msg(2, true, 2)))...))
	f.Add(append(append(item(2, tcpMsg(msg(3, false, 0))[:5]), item(2, tcpMsg(msg(3, false, 0))[5:])...), item(3, tcpMsg(msg(3, true, 0)))...))
	f.Fuzz(func(t *testing.T, data []byte) {
		const max = 4
		var recs []Record
		tbl := NewTable(Config{MaxDNSQueries: max}, func(r Record) { recs = append(recs, r) })
		cl, sv := netip.MustParseAddr("10.12.0.1"), netip.MustParseAddr("10.12.0.53")
		seq := [2]uint32{1, 1}
		now := int64(1700000040e9)
		for len(data) >= 2 {
			kind, n := data[0], min(int(data[1]), len(data)-2)
			b := data[2 : 2+n]
			data = data[2+n:]
			now += 5e8 // queries time out after 20 items
			p := Packet{Time: now, Src: cl, Dst: sv, SrcPort: 40000 + uint16(kind>>4), DstPort: 53, Protocol: ProtoUDP,
				Payload: b, PayloadLen: len(b), Len: 28 + len(b)}
			side := int(kind & 1)
			if kind&2 != 0 {
				p.Protocol, p.SrcPort, p.Flags, p.Seq, p.Ack, p.Window = ProtoTCP, 40000, FlagACK, seq[side], seq[1-side], 512
				seq[side] += uint32(len(b))
			}
			if side == 1 {
				p.Src, p.Dst, p.SrcPort, p.DstPort = p.Dst, p.Src, p.DstPort, p.SrcPort
			}
			tbl.Packet(&p)
			if q := &tbl.queries; q.len() > max || len(q.slots) > max {
				t.Fatalf("%d queries kept in %d slots, at most %d", q.len(), len(q.slots), max)
			}
		}
		tbl.Flush()
		if tbl.queries.len() != 0 || tbl.queries.head != -1 {
			t.Fatalf("%d queries kept after the end", tbl.queries.len())
		}
		for _, r := range recs {
			d := r.DNS
			if r.Layer != records.LayerDNS {
				continue
			}
			if len(d.QName) > records.MaxQNameLen || strings.ToLower(d.QName) != d.QName || finalDot(d.QName) ||
				d.RCode > 15 && d.RCode != records.RCodeTimeout || (r.SRT.Samples == 0) != (d.RCode == records.RCodeTimeout) {
				t.Fatalf("record %+v", r)
			}
		}
	})
}

// finalDot reports whether name ends with a dot that is not escaped: a label's own dot at its
// end is written "\." (and a backslash "\\"), so the dot is the name's own only after an even
// number of backslashes.
func finalDot(name string) bool {
	if !strings.HasSuffix(name, ".") {
		return false
	}
	n := len(name) - 1
	i := n
	for i > 0 && name[i-1] == '\\' {
		i--
	}
	return (n-i)%2 == 0
}
