package records

import (
	"database/sql/driver"
	"net/netip"
	"reflect"
	"testing"
)

// TestRowBuilder: the rows a rowBuilder makes hold every column of each record, in table order
// and of its kind's type, whether a value repeats the previous row's (its box reused) or not.
func TestRowBuilder(t *testing.T) {
	t.Parallel()
	names, _ := SQLColumns()
	if len(names) != NumSQLColumns {
		t.Fatalf("numSQLColumns = %d, the table has %d", NumSQLColumns, len(names))
	}
	a := Record{Time: 1700000000, Protocol: TCP, Application: "https",
		Client: Endpoint{IP: netip.MustParseAddr("10.0.0.1"), Port: 40000, Bytes: 1200, Packets: 9},
		Server: Endpoint{IP: netip.MustParseAddr("2001:db8::1"), Port: 443, Bytes: MaxCount, Packets: 40}}
	b := a
	b.Client.Port, b.Client.Bytes, b.Application = 40001, 0, "dns"
	b.Exporter, b.InIf, b.OutIf = netip.MustParseAddr("192.0.2.1"), 7, 1<<32-1
	b.Client.RTT, b.Server.RTT, b.CT, b.SRT, b.DTT = Timing{Sum: 1, Samples: 2}, Timing{Sum: 3, Samples: 4}, Timing{Sum: 5, Samples: 6}, Timing{Sum: 7, Samples: 8}, Timing{Sum: 9, Samples: 10}
	b.Client.Retrans, b.Server.Retrans, b.Client.ZeroWindows, b.Server.ZeroWindows, b.Resets = 11, 12, 13, 14, 15
	b.ServerName = "www.example.com"
	b.Client.Place = Place{Zone: "HQ/Paris"}
	b.Server.Place = Place{Zone: "DMZ", ASN: 15169, ASName: "GOOGLE", Country: "US",
		ASPath: []uint32{64500, 15169}, Communities: []string{"64500:100", "64500:1:2"}}
	b.ExporterName, b.InIfName, b.InIfAlias, b.OutIfName, b.OutIfAlias = "edge1", "ge-0/0/1", "uplink", "ge-0/0/2", "lan"
	b.SRT.Hist.AddIndex(300, 5)
	b.SRT.Hist.AddIndex(301, 3)
	c := b
	c.Time, c.Server.IP, c.Exporter = 0, netip.MustParseAddr("93.184.216.34"), netip.Addr{}
	d := c
	d.Layer, d.HTTP = LayerHTTP, HTTP{Method: "GET", Status: 404, Host: "a.example", Path: "/x"}
	e := c
	e.Layer, e.DNS, e.TLS = LayerTLS, DNS{QName: "q.example", QType: 28, RCode: RCodeTimeout}, TLS{Version: 0x0304, Cipher: 0x1301, NotAfter: 1 << 40, Issuer: "CN=R3"}
	var rb RowBuilder
	for i, r := range []Record{a, a, b, a, c, c, b, d, e, a} {
		got := rb.AppendRow(nil, &r)
		if want := wantRow(&r); !reflect.DeepEqual(got, want) {
			t.Errorf("row %d = %#v; want %#v", i, got, want)
		}
	}
}

// wantRow is the row of r written out by hand.
func wantRow(r *Record) []driver.Value {
	ch, cl := Halves(r.Client.IP)
	sh, sl := Halves(r.Server.IP)
	eh, el := Halves(r.Exporter)
	return []driver.Value{r.Time, r.Protocol, r.Application, ch, cl, r.Client.Port, r.Client.Bytes, r.Client.Packets,
		sh, sl, r.Server.Port, r.Server.Bytes, r.Server.Packets, eh, el, r.InIf, r.OutIf,
		r.Client.RTT.Sum, r.Client.RTT.Samples, r.Client.Retrans, r.Client.ZeroWindows,
		r.Server.RTT.Sum, r.Server.RTT.Samples, r.Server.Retrans, r.Server.ZeroWindows,
		r.CT.Sum, r.CT.Samples, r.SRT.Sum, r.SRT.Samples, r.DTT.Sum, r.DTT.Samples, r.Resets, r.ServerName,
		r.Client.Zone, r.Server.Zone, r.Client.ASN, r.Client.ASName, r.Server.ASN, r.Server.ASName,
		r.Client.Country, r.Server.Country, r.ExporterName, r.InIfName, r.InIfAlias, r.OutIfName, r.OutIfAlias,
		hist(r.Client.RTT), hist(r.Server.RTT), hist(r.CT), hist(r.SRT), hist(r.DTT),
		uint8(r.Layer), r.HTTP.Method, r.HTTP.Status, r.HTTP.Host, r.HTTP.Path, r.DNS.QName, r.DNS.QType, r.DNS.RCode,
		r.TLS.Version, r.TLS.Cipher, r.TLS.NotAfter, r.TLS.Issuer,
		list(r.Client.ASPath), list(r.Server.ASPath), list(r.Client.Communities), list(r.Server.Communities)}
}

// list is a list column of TestRowBuilder's records: empty, never nil, without values.
func list[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// hist is the histogram column of a time of TestRowBuilder's records, by hand: empty without
// samples; its histogram's entries; or, averaged, the samples in bucket 0 (every average of
// those records is below a microsecond).
func hist(t Timing) []uint64 {
	switch {
	case t.Samples == 0:
		return []uint64{}
	case t.Hist.Count() == 0:
		return []uint64{t.Samples << 10}
	}
	return []uint64{5<<10 | 300, 3<<10 | 301}
}

// BenchmarkRowBuilder makes the appender's rows of 10,000 records as BenchmarkIngest's.
func BenchmarkRowBuilder(b *testing.B) {
	recs := make([]Record, 10000)
	for i := range recs {
		recs[i] = Record{Time: 1700000000 + int64(i/10), Protocol: TCP, Application: "https",
			Client: Endpoint{IP: netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}), Port: uint16(40000 + i), Bytes: uint64(100 + i), Packets: 2},
			Server: Endpoint{IP: netip.MustParseAddr("93.184.216.34"), Port: 443, Bytes: 123456, Packets: 40}}
	}
	row := make([]driver.Value, 0, NumSQLColumns)
	b.ReportAllocs()
	for b.Loop() {
		var rb RowBuilder
		for i := range recs {
			row = rb.AppendRow(row[:0], &recs[i])
		}
	}
}
