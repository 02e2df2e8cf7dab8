package records_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// layerRecord is a record of the layers' tests with the members given after its own.
func layerRecord(members string) json.RawMessage {
	return json.RawMessage(`{"time": 1700000000, "protocol": "tcp", "client": {"ip": "10.0.0.5"}, "server": {"ip": "10.0.0.6", "port": 80}` + members + `}`)
}

// TestParseLayers: a record of each layer parses to its values, normalised as the query
// language shows them (names and numbers both accepted), and its JSON parses back to it.
func TestParseLayers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		members string
		want    func(r *records.Record)
	}{
		{`, "layer": "http", "http": {"method": "GET", "status": 404, "host": "WWW.Example.com:8080", "path": "/api/users/{n}"}`,
			func(r *records.Record) {
				r.Layer, r.HTTP = records.LayerHTTP, records.HTTP{Method: "GET", Status: 404, Host: "www.example.com", Path: "/api/users/{n}"}
			}},
		{`, "layer": "http", "http": {"method": "POST", "status": null, "host": "[2001:db8::1]:80"}`,
			func(r *records.Record) {
				r.Layer, r.HTTP = records.LayerHTTP, records.HTTP{Method: "POST", Host: "[2001:db8::1]"}
			}},
		{`, "layer": "dns", "dns": {"qname": "WWW.example.com.", "qtype": "aaaa", "rcode": "NXDOMAIN"}`,
			func(r *records.Record) {
				r.Layer, r.DNS = records.LayerDNS, records.DNS{QName: "www.example.com", QType: 28, RCode: 3}
			}},
		{`, "layer": "dns", "dns": {"qname": "a.example", "qtype": 65, "rcode": "timeout"}`,
			func(r *records.Record) {
				r.Layer, r.DNS = records.LayerDNS, records.DNS{QName: "a.example", QType: 65, RCode: records.RCodeTimeout}
			}},
		{`, "layer": "dns", "dns": {"qtype": "4000", "rcode": 23}`,
			func(r *records.Record) { r.Layer, r.DNS = records.LayerDNS, records.DNS{QType: 4000, RCode: 23} }},
		{`, "layer": "tls", "server_name": "a.example", "tls": {"version": "1.2", "cipher": "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "not_after": "2030-01-01T00:00:00Z", "issuer": "CN=R3"}`,
			func(r *records.Record) {
				r.Layer, r.ServerName = records.LayerTLS, "a.example"
				r.TLS = records.TLS{Version: 0x0303, Cipher: 0xc02f, NotAfter: 1893456000, Issuer: "CN=R3"}
			}},
		{`, "layer": "tls", "tls": {"version": 772, "cipher": 4865}`,
			func(r *records.Record) {
				r.Layer, r.TLS = records.LayerTLS, records.TLS{Version: 0x0304, Cipher: 0x1301}
			}},
		{`, "layer": "tls", "tls": {"version": 768, "cipher": 65280}`,
			func(r *records.Record) {
				r.Layer, r.TLS = records.LayerTLS, records.TLS{Version: 0x0300, Cipher: 0xff00}
			}},
		{`, "layer": "transport", "http": null`, func(r *records.Record) {}},
		{`, "layer": "http"`, func(r *records.Record) { r.Layer = records.LayerHTTP }},
	} {
		got, err := records.ParseRecord(layerRecord(c.members), testNow)
		want, _ := records.ParseRecord(layerRecord(""), testNow)
		c.want(&want)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v, %v; want %+v", c.members, got, err, want)
			continue
		}
		b, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		if back, err := records.ParseRecord(b, testNow); err != nil || !reflect.DeepEqual(back, got) {
			t.Errorf("round trip through %s: %+v, %v", b, back, err)
		}
	}
}

// TestParseLayersBad: a layer's member in a record of another layer, an unknown name or a
// value past its bound (layer.go) is a *RecordError naming the field.
func TestParseLayersBad(t *testing.T) {
	t.Parallel()
	long := func(n int) string { return strings.Repeat("a", n) }
	for _, c := range []struct{ members, field string }{
		{`, "layer": "ftp"`, "layer"},
		{`, "layer": 1`, "layer"},
		{`, "http": {"method": "GET"}`, "http"},
		{`, "layer": "dns", "http": {"method": "GET"}`, "http"},
		{`, "layer": "http", "tls": {}`, "tls"},
		{`, "layer": "http", "http": {"verb": "GET"}`, "http.verb"},
		{`, "layer": "http", "http": []`, "http"},
		{`, "layer": "http", "http": {"status": 99}`, "http.status"},
		{`, "layer": "http", "http": {"status": "200"}`, "http.status"},
		{`, "layer": "http", "http": {"method": "` + long(records.MaxMethodLen+1) + `"}`, "http.method"},
		{`, "layer": "http", "http": {"host": "` + long(records.MaxHostLen+1) + `"}`, "http.host"},
		{`, "layer": "http", "http": {"path": "` + long(records.MaxPathLen+1) + `"}`, "http.path"},
		{`, "layer": "http", "http": {"path": "/a\u0001"}`, "http.path"},
		{`, "layer": "dns", "dns": {"qname": "` + long(records.MaxQNameLen+1) + `"}`, "dns.qname"},
		{`, "layer": "dns", "dns": {"qtype": "BOGUS"}`, "dns.qtype"},
		{`, "layer": "dns", "dns": {"qtype": 65536}`, "dns.qtype"},
		{`, "layer": "dns", "dns": {"rcode": 4096}`, "dns.rcode"},
		{`, "layer": "dns", "dns": {"rcode": "65535"}`, "dns.rcode"},
		{`, "layer": "tls", "tls": {"version": "1.4"}`, "tls.version"},
		{`, "layer": "tls", "tls": {"cipher": "TLS_NOPE"}`, "tls.cipher"},
		{`, "layer": "tls", "tls": {"not_after": -1}`, "tls.not_after"},
		{`, "layer": "tls", "tls": {"issuer": "` + long(records.MaxIssuerLen+1) + `"}`, "tls.issuer"},
	} {
		_, err := records.ParseRecord(layerRecord(c.members), testNow)
		var re *records.RecordError
		if !errors.As(err, &re) || re.Field != c.field {
			t.Errorf("%s: %v; want a *RecordError of %s", c.members, err, c.field)
		}
	}
	// At the bounds, accepted.
	for _, m := range []string{
		`, "layer": "http", "http": {"method": "` + long(records.MaxMethodLen) + `", "host": "` + long(records.MaxHostLen) + `", "path": "` + long(records.MaxPathLen) + `"}`,
		`, "layer": "dns", "dns": {"qname": "` + long(records.MaxQNameLen) + `", "qtype": 65535, "rcode": 4095}`,
		`, "layer": "tls", "tls": {"issuer": "` + long(records.MaxIssuerLen) + `"}`,
	} {
		if _, err := records.ParseRecord(layerRecord(m), testNow); err != nil {
			t.Errorf("%s: %v", m, err)
		}
	}
	// A record built in Go is checked as well (the probe's go to the stores unparsed).
	r, _ := records.ParseRecord(layerRecord(""), testNow)
	r.DNS.QName = "a.example"
	var re *records.RecordError
	if err := r.Validate(testNow); !errors.As(err, &re) || re.Field != "dns" {
		t.Errorf("a transport record with a DNS name: %v", err)
	}
}
