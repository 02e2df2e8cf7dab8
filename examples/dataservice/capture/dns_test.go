package capture_test

import (
	"encoding/binary"
	"net/netip"
	"os"
	"path/filepath"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/capture"
	"golang.org/x/net/dns/dnsmessage"
)

// udpFrame builds an Ethernet/IPv4/UDP frame carrying payload.
func udpFrame(src, dst [4]byte, sport, dport uint16, payload []byte) []byte {
	f := make([]byte, 14+20+8, 14+20+8+len(payload))
	copy(f, []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0x08, 0x00})
	ip := f[14:]
	ip[0] = 0x45
	binary.BigEndian.PutUint16(ip[2:], uint16(28+len(payload)))
	ip[8], ip[9] = 64, capture.ProtoUDP
	copy(ip[12:], src[:])
	copy(ip[16:], dst[:])
	binary.BigEndian.PutUint16(ip[20:], sport)
	binary.BigEndian.PutUint16(ip[22:], dport)
	binary.BigEndian.PutUint16(ip[24:], uint16(8+len(payload)))
	return append(f, payload...)
}

// dnsMessage is a DNS query for name's A record (answer nil) or its response answering it
// with the addresses in answer.
func dnsMessage(t *testing.T, id uint16, name string, answer ...[4]byte) []byte {
	t.Helper()
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: id, Response: answer != nil, RecursionDesired: true})
	b.EnableCompression()
	n := dnsmessage.MustNewName(name + ".")
	if err := b.StartQuestions(); err != nil {
		t.Fatal(err)
	}
	if err := b.Question(dnsmessage.Question{Name: n, Type: dnsmessage.TypeA, Class: dnsmessage.ClassINET}); err != nil {
		t.Fatal(err)
	}
	if err := b.StartAnswers(); err != nil {
		t.Fatal(err)
	}
	for _, a := range answer {
		if err := b.AResource(dnsmessage.ResourceHeader{Name: n, Class: dnsmessage.ClassINET, TTL: 60}, dnsmessage.AResource{A: a}); err != nil {
			t.Fatal(err)
		}
	}
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// dnsCapture collects frames for a capture file, each 1 ms after the one before unless
// told otherwise.
type dnsCapture struct {
	frames [][]byte
	times  []int64
	now    int64
}

func (c *dnsCapture) add(f []byte) {
	c.now += 1e6
	c.frames, c.times = append(c.frames, f), append(c.times, c.now)
}

// names runs the capture through a probe and returns the name of each TCP server.
func (c *dnsCapture) names(t *testing.T, cfg capture.Config) (map[netip.Addr]string, capture.Stats) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "dns.pcap")
	if err := os.WriteFile(path, pcapFile(c.frames, c.times), 0o600); err != nil {
		t.Fatal(err)
	}
	recs, tbl := readRecords(t, path, cfg)
	names := map[netip.Addr]string{}
	for _, r := range recs {
		if r.Protocol == capture.ProtoTCP {
			names[r.Server.IP] = r.ServerName
		}
	}
	return names, tbl.Stats()
}

// TestDNSNamesOnlyFromAnswers sends DNS answers through the probe: only an answer to a query
// it saw (same id, addresses, ports and name, within the timeout) names a server; one nobody
// asked for, or that answers another query, names nothing.
func TestDNSNamesOnlyFromAnswers(t *testing.T) {
	t.Parallel()
	cl, resolver, other := [4]byte{10, 7, 1, 1}, [4]byte{10, 7, 1, 53}, [4]byte{10, 7, 1, 54}
	server := func(i byte) [4]byte { return [4]byte{10, 7, 0, i} }
	c := &dnsCapture{now: 1700000040e9}
	query := func(port, id uint16, name string) {
		c.add(udpFrame(cl, resolver, port, 53, dnsMessage(t, id, name)))
	}
	answer := func(from [4]byte, port, id uint16, name string, a [4]byte) {
		c.add(udpFrame(from, cl, 53, port, dnsMessage(t, id, name, a)))
	}
	answer(resolver, 5000, 1, "forged.example", server(1)) // nobody asked
	query(5001, 2, "real.example")
	answer(resolver, 5001, 2, "REAL.example", server(2)) // the answer: names 10.7.0.2
	answer(resolver, 5001, 2, "real.example", server(7)) // again: that query was answered
	query(5003, 3, "id.example")
	answer(resolver, 5003, 4, "id.example", server(3)) // another id
	query(5004, 5, "from.example")
	answer(other, 5004, 5, "from.example", server(4)) // from another address
	query(5005, 6, "asked.example")
	answer(resolver, 5005, 6, "other.example", server(5)) // another name
	query(5006, 7, "late.example")
	c.now += 11e9
	answer(resolver, 5006, 7, "late.example", server(6)) // after the timeout
	for i := range byte(7) {
		c.add(tcpFrame(cl, server(i+1), 40000+uint16(i), 443, capture.FlagSYN, 1, 0, 0))
	}
	names, st := c.names(t, capture.Config{})
	for i := range byte(7) {
		want := ""
		if i+1 == 2 {
			want = "real.example"
		}
		if got := names[netip.AddrFrom4(server(i+1))]; got != want {
			t.Errorf("server %v named %q, want %q", server(i+1), got, want)
		}
	}
	if st.Names != 1 {
		t.Errorf("%d names cached, want 1", st.Names)
	}
}

// TestDNSQueriesBounded remembers at most MaxDNSQueries queries: past it, the oldest is
// forgotten and its answer names nothing; the others still do.
func TestDNSQueriesBounded(t *testing.T) {
	t.Parallel()
	cl, resolver := [4]byte{10, 8, 1, 1}, [4]byte{10, 8, 1, 53}
	server := func(i byte) [4]byte { return [4]byte{10, 8, 0, i} }
	c := &dnsCapture{now: 1700000040e9}
	for i := range byte(3) {
		c.add(udpFrame(cl, resolver, 5000+uint16(i), 53, dnsMessage(t, uint16(i), "q.example")))
	}
	for i := range byte(3) {
		c.add(udpFrame(resolver, cl, 53, 5000+uint16(i), dnsMessage(t, uint16(i), "q.example", server(i+1))))
		c.add(tcpFrame(cl, server(i+1), 40000, 443, capture.FlagSYN, 1, 0, 0))
	}
	names, st := c.names(t, capture.Config{MaxDNSQueries: 2})
	for i, want := range []string{"", "q.example", "q.example"} {
		if got := names[netip.AddrFrom4(server(byte(i+1)))]; got != want {
			t.Errorf("server %d named %q, want %q", i+1, got, want)
		}
	}
	if st.DNSQueries != 0 || st.DNSForgotten != 1 || st.DNSRecords != 2 {
		t.Errorf("%d queries still awaiting an answer, %d forgotten, %d records; want 0, 1 and 2 (the answered ones)",
			st.DNSQueries, st.DNSForgotten, st.DNSRecords)
	}
}
