package collect

import (
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/capture"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// varlen is an IPFIX variable-length value (RFC 7011, section 7): its length in one byte, or
// 255 and two bytes.
func varlen(s string) []byte {
	if len(s) < 255 {
		return append([]byte{byte(len(s))}, s...)
	}
	return append(cat([]byte{255}, u16(uint16(len(s)))), s...)
}

// nProbe's HTTP and DNS plugins' fields (ntop's number, 35632), variable-length in IPFIX.
var (
	nprobeHTTPFields = []efield{
		{180, 0xffff, penNtop}, // HTTP_URL
		{360, 0xffff, penNtop}, // HTTP_METHOD
		{181, 2, penNtop},      // HTTP_RET_CODE
		{187, 0xffff, penNtop}, // HTTP_HOST
		{125, 4, penNtop},      // APPL_LATENCY_MS
	}
	nprobeDNSFields = []efield{
		{205, 0xffff, penNtop}, // DNS_QUERY
		{207, 1, penNtop},      // DNS_QUERY_TYPE
		{208, 1, penNtop},      // DNS_RET_CODE
	}
	ciscoHTTPFields = []efield{
		{12235, 0xffff, penCisco}, // application http host (45003 in Cisco's guide)
		{9357, 0xffff, penCisco},  // application http uri statistics (42125)
	}
)

// layers returns the records of recs of layer l, each checked valid.
func layers(t *testing.T, recs []records.Record, l records.Layer) []records.Record {
	t.Helper()
	var out []records.Record
	for _, r := range recs {
		if err := r.Validate(now); err != nil {
			t.Fatalf("record %+v: %v", r, err)
		}
		if r.Layer == l {
			out = append(out, r)
		}
	}
	return out
}

// sameConversation checks that layer record r has the addresses, ports and exporter of its
// flow's transport record tr, and no counts of its own.
func sameConversation(t *testing.T, r, tr records.Record) {
	t.Helper()
	if r.Client.IP != tr.Client.IP || r.Client.Port != tr.Client.Port || r.Server.IP != tr.Server.IP ||
		r.Server.Port != tr.Server.Port || r.Exporter != exporterA || r.Time != tr.Time || r.Protocol != tr.Protocol ||
		r.Client.Bytes != 0 || r.Server.Bytes != 0 {
		t.Errorf("layer record %+v, transport %+v: want the transport's conversation and no counts", r, tr)
	}
}

// TestNProbeHTTP checks nProbe's HTTP plugin in IPFIX: a flow of the client with its fields
// makes, besides its transport record, one record of layer http: the method, the status, the
// Host without its port in lower case, the URL's path without its query string and with its
// number folded as the probe folds it, and APPL_LATENCY_MS as srt.
func TestNProbeHTTP(t *testing.T) {
	t.Parallel()
	fields := append(plainFields(), nprobeHTTPFields...)
	data := cat(v9Data(client4, server4, 50000, 80, 900, 6, 3, 4),
		varlen("http://WWW.Example.COM:8080/api/users/12345?page=2#top"), varlen("GET"), u16(404),
		varlen("WWW.Example.COM:8080"), u32(35))
	recs, c := collectAll(t, Limits{}, NetFlow, now, ipfix(1700000040, 0, set(2, ipfixTemplate(256, fields...)), set(256, data)))
	tr := layers(t, recs, records.LayerTransport)
	h := layers(t, recs, records.LayerHTTP)
	if len(tr) != 1 || len(h) != 1 {
		t.Fatalf("stored %+v: want one transport and one http record", recs)
	}
	want := records.HTTP{Method: "GET", Status: 404, Host: "www.example.com", Path: "/api/users/{n}"}
	if h[0].HTTP != want {
		t.Errorf("http = %+v, want %+v", h[0].HTTP, want)
	}
	sameConversation(t, h[0], tr[0])
	sameTiming(t, "srt", h[0].SRT, timing(35))
	sameTiming(t, "transport srt", tr[0].SRT, timing(35))
	metric(t, c, `collector_fields_ignored_total{exporter="192.0.2.1",protocol="netflow"} 0`)
}

// TestNProbeHTTPv9 checks the same fields in NetFlow v9, of fixed lengths that nProbe pads with
// NULs, and that the server's flow (the answer) makes no second record of the request.
func TestNProbeHTTPv9(t *testing.T) {
	t.Parallel()
	fields := append(plainFields(), efield{180, 32, penNtop}, efield{360, 8, penNtop}, efield{181, 2, penNtop}, efield{187, 16, penNtop})
	pad := func(s string, n int) []byte { return append([]byte(s), make([]byte, n-len(s))...) }
	http := cat(pad("/v1/items/9f86d081884c7d65", 32), pad("POST", 8), u16(201), pad("shop.example", 16))
	data := cat(v9Data(client4, server4, 50000, 8080, 900, 6, 3, 4), http, v9Data(server4, client4, 8080, 50000, 5000, 5, 4, 3), http)
	recs, _ := collectAll(t, Limits{}, NetFlow, now, v9(2, 6000, 1700000040, 0, set(0, templateRecord(256, asV9(fields)...)), set(256, data)))
	h := layers(t, recs, records.LayerHTTP)
	want := records.HTTP{Method: "POST", Status: 201, Host: "shop.example", Path: "/v1/items/{id}"}
	if len(h) != 1 || h[0].HTTP != want {
		t.Fatalf("http records %+v, want one of %+v", h, want)
	}
	if h[0].Client.IP != client4 || h[0].Server.Port != 8080 {
		t.Errorf("record %+v: want the client %v and the server's port 8080", h[0], client4)
	}
}

// TestNProbeDNS checks nProbe's DNS plugin: one record of layer dns, the name in lower case
// without its final dot, the type and the code.
func TestNProbeDNS(t *testing.T) {
	t.Parallel()
	fields := append(plainFields(), nprobeDNSFields...)
	data := cat(v9Data(client4, server4, 50000, 53, 80, 1, 3, 4), varlen("WWW.Example.ORG."), []byte{28}, []byte{3})
	recs, _ := collectAll(t, Limits{}, NetFlow, now, ipfix(1700000040, 0, set(2, ipfixTemplate(256, fields...)), set(256, data)))
	d := layers(t, recs, records.LayerDNS)
	want := records.DNS{QName: "www.example.org", QType: 28, RCode: 3}
	if len(d) != 1 || d[0].DNS != want {
		t.Fatalf("dns records %+v, want one of %+v", d, want)
	}
	sameConversation(t, d[0], layers(t, recs, records.LayerTransport)[0])
}

// TestDNSBounds checks Limits.MaxDNSNames: the DNS records of one exporter's flows of one hour
// carry at most so many query names; the next read {other}, counted; a name already kept
// stays.
func TestDNSBounds(t *testing.T) {
	t.Parallel()
	fields := append(plainFields(), nprobeDNSFields...)
	var data []byte
	for i, name := range []string{"a.example", "b.example", "c.example", "d.example", "a.example", "e.example"} {
		data = append(data, cat(v9Data(client4, server4, uint16(50000+i), 53, 80, 1, 3, 4), varlen(name), []byte{1}, []byte{0})...)
	}
	recs, c := collectAll(t, Limits{MaxDNSNames: 3}, NetFlow, now, ipfix(1700000040, 0, set(2, ipfixTemplate(256, fields...)), set(256, data)))
	var got []string
	for _, r := range layers(t, recs, records.LayerDNS) {
		got = append(got, r.DNS.QName)
	}
	if want := []string{"a.example", "b.example", "c.example", capture.HTTPOther, "a.example", capture.HTTPOther}; !slices.Equal(got, want) {
		t.Errorf("query names %q, want %q", got, want)
	}
	metric(t, c, `collector_layer_values_left_out_total{exporter="192.0.2.1",protocol="netflow"} 2`)
}

// TestCiscoHTTP checks Cisco AVC's HTTP host and URI statistics: a record of layer http per
// URI (its count not kept), the paths folded, no status (Cisco sends none).
func TestCiscoHTTP(t *testing.T) {
	t.Parallel()
	fields := append(plainFields(), ciscoHTTPFields...)
	uris := "/orders/42\x00\x00\x05/login?next=/\x00\x00\x01"
	data := cat(v9Data(client4, server4, 50000, 80, 900, 6, 3, 4), varlen("Api.Example.NET"), varlen(uris))
	recs, _ := collectAll(t, Limits{}, NetFlow, now, ipfix(1700000040, 0, set(2, ipfixTemplate(256, fields...)), set(256, data)))
	h := layers(t, recs, records.LayerHTTP)
	want := []records.HTTP{{Host: "api.example.net", Path: "/orders/{n}"}, {Host: "api.example.net", Path: "/login"}}
	if len(h) != len(want) {
		t.Fatalf("http records %+v, want %+v", h, want)
	}
	for i := range want {
		if h[i].HTTP != want[i] {
			t.Errorf("record %d: %+v, want %+v", i, h[i].HTTP, want[i])
		}
	}
}

// TestLayerFieldsHostile checks values no exporter should send: an over-long URL is cut at
// records.MaxPathLen, a host of invalid UTF-8 and control characters cleaned and cut at
// records.MaxHostLen, an over-long method cut, a status past 999 and a DNS code past 12 bits
// ignored and counted (no record says a code the exporter did not send), more URIs than
// maxURIs cut; every record stored is valid.
func TestLayerFieldsHostile(t *testing.T) {
	t.Parallel()
	url := "/" + strings.Repeat("a", 3000) + "?q"
	hostile := "\xffEVIL\x01Host" + strings.Repeat("x", 400) + ":80"
	var uris strings.Builder
	for i := range maxURIs + 4 {
		uris.WriteString("/p" + string(rune('a'+i)) + "\x00\x00\x01")
	}
	http := append(plainFields(), efield{180, 0xffff, penNtop}, efield{360, 0xffff, penNtop}, efield{181, 2, penNtop}, efield{187, 0xffff, penNtop})
	dns := append(plainFields(), efield{205, 0xffff, penNtop}, efield{207, 2, penNtop}, efield{208, 2, penNtop})
	cisco := append(plainFields(), ciscoHTTPFields...)
	recs, c := collectAll(t, Limits{}, NetFlow, now, ipfix(1700000040, 0,
		set(2, cat(ipfixTemplate(256, http...), ipfixTemplate(257, dns...), ipfixTemplate(258, cisco...))),
		set(256, cat(v9Data(client4, server4, 50000, 80, 900, 6, 3, 4), varlen(url), varlen(strings.Repeat("M", 40)), u16(1200), varlen(hostile))),
		set(257, cat(v9Data(client4, server4, 50001, 53, 80, 1, 3, 4), varlen("bad.example"), u16(1), u16(5000))),
		set(258, cat(v9Data(client4, server4, 50002, 80, 80, 1, 3, 4), varlen("cisco.example"), varlen(uris.String())))))
	h := layers(t, recs, records.LayerHTTP)
	if len(h) != 1+maxURIs {
		t.Fatalf("%d http records, want 1 of nProbe and %d of Cisco (maxURIs)", len(h), maxURIs)
	}
	r := h[0].HTTP
	wantHost := "\ufffdevil host" + strings.Repeat("x", records.MaxHostLen-len("\ufffdevil host"))
	if len(r.Path) != records.MaxPathLen || r.Path != "/"+strings.Repeat("a", records.MaxPathLen-1) || r.Status != 0 ||
		r.Host != wantHost || r.Method != strings.Repeat("M", records.MaxMethodLen) {
		t.Errorf("http = %+v: want the path and the host cut, no status, the method cut", r)
	}
	if d := layers(t, recs, records.LayerDNS); len(d) != 0 {
		t.Errorf("dns records %+v: want none of a code past 4095", d)
	}
	metric(t, c, `collector_fields_ignored_total{exporter="192.0.2.1",protocol="netflow"} 2`)
}

// TestLayerFieldsAbsent checks that a template without the vendors' layer fields, or with
// them empty, makes no record of a layer.
func TestLayerFieldsAbsent(t *testing.T) {
	t.Parallel()
	fields := append(plainFields(), efield{180, 0xffff, penNtop}, efield{187, 0xffff, penNtop})
	recs, _ := collectAll(t, Limits{}, NetFlow, now,
		ipfix(1700000040, 0, set(2, ipfixTemplate(256, plainFields()...)), set(256, v9Data(client4, server4, 50000, 80, 900, 6, 3, 4))),
		ipfix(1700000040, 0, set(2, ipfixTemplate(257, fields...)), set(257, cat(v9Data(client4, server4, 50001, 80, 900, 6, 3, 4), varlen(""), varlen("")))))
	if n := len(layers(t, recs, records.LayerTransport)); n != len(recs) || n != 2 {
		t.Errorf("stored %+v: want two transport records alone", recs)
	}
}

// TestHTTPBounds checks the hourly bounds of one exporter's HTTP records at their defaults, as
// the probe's: 10,000 distinct paths and hosts and 64 methods (the common ones aside) are
// kept; the next path and method read {other}, the next host none, counted; a value already
// kept stays; another exporter, and the next hour, have their own.
func TestHTTPBounds(t *testing.T) {
	t.Parallel()
	const n = 10_000
	tpl := set(2, ipfixTemplate(256, append(plainFields(), nprobeHTTPFields...)...))
	flow := func(port uint16, method, host, path string) []byte {
		return cat(v9Data(client4, server4, port, 80, 900, 6, 3, 4), varlen(path), varlen(method), u16(200), varlen(host), u32(35))
	}
	method := func(i int) string { return "M" + strconv.Itoa(i) }
	var datagrams [][]byte
	var data []byte
	for i := range n + 1 { // paths and hosts 0..n, methods 0..64, then GET
		m := "GET"
		if i <= capture.HTTPMaxMethods {
			m = method(i)
		}
		data = append(data, flow(uint16(1024+i), m, "h"+strconv.Itoa(i)+".example", "/p"+strconv.Itoa(i))...)
		if len(data) > 30_000 || i == n {
			datagrams = append(datagrams, ipfix(1700000040, 0, tpl, set(256, data)))
			data = nil
		}
	}
	known := ipfix(1700000040, 0, tpl, set(256, flow(2000, method(0), "h0.example", "/p0")))
	fresh := func(secs uint32) []byte {
		return ipfix(secs, 0, tpl, set(256, flow(2001, "NEW", "new.example", "/new")))
	}
	s := &memStore{}
	c := New(s, nil, Limits{Workers: 1})
	for _, d := range append(datagrams, known, fresh(1700000040)) {
		c.receive(exporterA, NetFlow, d, now)
	}
	exporterB := netip.MustParseAddr("192.0.2.2")
	c.receive(exporterB, NetFlow, fresh(1700000040), now)
	c.receive(exporterA, NetFlow, fresh(1700000040+3600), now.Add(time.Hour))
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	h := layers(t, s.recs, records.LayerHTTP)
	if len(h) != n+5 {
		t.Fatalf("%d http records, want %d", len(h), n+5)
	}
	if h[0].Time/3600+1 != h[n+4].Time/3600 {
		t.Fatalf("times %d and %d: want the last record in the next hour", h[0].Time, h[n+4].Time)
	}
	paths := map[string]bool{}
	for i, r := range h[:n] {
		paths[r.HTTP.Path] = true
		if want := "h" + strconv.Itoa(i) + ".example"; r.HTTP.Host != want {
			t.Fatalf("record %d: host %q, want %q (within the bound)", i, r.HTTP.Host, want)
		}
	}
	if len(paths) != n {
		t.Errorf("%d paths of the first %d records, want all kept", len(paths), n)
	}
	if m := h[capture.HTTPMaxMethods-1].HTTP.Method; m != method(capture.HTTPMaxMethods-1) {
		t.Errorf("the 64th method reads %q, want it kept", m)
	}
	other := capture.HTTPOther
	for i, want := range []records.HTTP{
		capture.HTTPMaxMethods: {Method: other, Status: 200, Host: "h64.example", Path: "/p64"}, // the 65th method
		n:                      {Method: "GET", Status: 200, Path: other},                       // the 10,001st host and path
		n + 1:                  {Method: method(0), Status: 200, Host: "h0.example", Path: "/p0"},
		n + 2:                  {Method: other, Status: 200, Path: other},
		n + 3:                  {Method: "NEW", Status: 200, Host: "new.example", Path: "/new"}, // exporter B
		n + 4:                  {Method: "NEW", Status: 200, Host: "new.example", Path: "/new"}, // the next hour
	} {
		if want != (records.HTTP{}) && h[i].HTTP != want {
			t.Errorf("record %d: %+v, want %+v", i, h[i].HTTP, want)
		}
	}
	metric(t, c, `collector_layer_values_left_out_total{exporter="192.0.2.1",protocol="netflow"} 6`)
	metric(t, c, `collector_layer_values_left_out_total{exporter="192.0.2.2",protocol="netflow"} 0`)
}

// TestHTTPBytesShared checks Limits.MaxHTTPBytes: the exporters' HTTP strings of an hour share
// one budget, so that an exporter within its own bounds finds no room once others used it; the
// strings an exporter already holds stay; the next hour renews the budget.
func TestHTTPBytesShared(t *testing.T) {
	t.Parallel()
	tpl := set(2, ipfixTemplate(256, append(plainFields(), nprobeHTTPFields...)...))
	flow := func(secs uint32, name string) []byte {
		d := cat(v9Data(client4, server4, 1024, 80, 900, 6, 3, 4), varlen("/"+name), varlen("GET"), u16(200), varlen(name+".example"), u32(35))
		return ipfix(secs, 0, tpl, set(256, d))
	}
	// Three records' strings: a host of 10 bytes and a path of 3, each string also costs
	// capture.HTTPStringCost; GET is a common method and costs nothing.
	budget := 3 * (10 + 3 + 2*capture.HTTPStringCost)
	s := &memStore{}
	c := New(s, nil, Limits{Workers: 1, MaxHTTPBytes: budget})
	exporterB := netip.MustParseAddr("192.0.2.2")
	const hour = 1700000040
	for _, d := range []struct {
		ex   netip.Addr
		secs uint32
		name string
	}{
		{exporterA, hour, "a1"}, {exporterA, hour, "a2"}, {exporterA, hour, "a3"},
		{exporterB, hour, "b1"}, // no room left this hour
		{exporterA, hour, "a1"}, // already held by A
		{exporterB, hour + 3600, "b1"},
	} {
		c.receive(d.ex, NetFlow, flow(d.secs, d.name), now)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	h := layers(t, s.recs, records.LayerHTTP)
	want := []records.HTTP{
		{Method: "GET", Status: 200, Host: "a1.example", Path: "/a1"},
		{Method: "GET", Status: 200, Host: "a2.example", Path: "/a2"},
		{Method: "GET", Status: 200, Host: "a3.example", Path: "/a3"},
		{Method: "GET", Status: 200, Path: capture.HTTPOther},
		{Method: "GET", Status: 200, Host: "a1.example", Path: "/a1"},
		{Method: "GET", Status: 200, Host: "b1.example", Path: "/b1"},
	}
	if len(h) != len(want) {
		t.Fatalf("%d http records, want %d", len(h), len(want))
	}
	for i := range want {
		if h[i].HTTP != want[i] {
			t.Errorf("record %d: %+v, want %+v", i, h[i].HTTP, want[i])
		}
	}
	metric(t, c, `collector_layer_values_left_out_total{exporter="192.0.2.2",protocol="netflow"} 2`)
}
