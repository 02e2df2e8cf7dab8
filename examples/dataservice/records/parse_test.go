package records_test

import (
	"encoding/json"
	"errors"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

var testNow = time.Unix(1700000000, 0)

const goodRecord = `{"time": 1700000000, "protocol": "tcp", "application": "https",
 "client": {"ip": "10.0.0.5", "port": 51234, "bytes": 1200, "packets": 9},
 "server": {"ip": "93.184.216.34", "port": 443, "bytes": 48000, "packets": 40}}`

// rec builds a record JSON from the good one with top-level members replaced ("" value: removed).
func rec(t *testing.T, replace map[string]string) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(goodRecord), &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range replace {
		if v == "" {
			delete(m, k)
		} else {
			m[k] = json.RawMessage(v)
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseRecordGood(t *testing.T) {
	t.Parallel()
	want := records.Record{
		Time: 1700000000, Protocol: records.TCP, Application: "https",
		Client: records.Endpoint{IP: netip.MustParseAddr("10.0.0.5"), Port: 51234, Bytes: 1200, Packets: 9},
		Server: records.Endpoint{IP: netip.MustParseAddr("93.184.216.34"), Port: 443, Bytes: 48000, Packets: 40},
	}
	tests := []struct {
		name    string
		replace map[string]string
		edit    func(*records.Record)
	}{
		{"as documented", nil, nil},
		{"RFC 3339 time", map[string]string{"time": `"2023-11-14T22:13:20Z"`}, nil},
		{"RFC 3339 time with offset and fraction", map[string]string{"time": `"2023-11-14T23:13:20.75+01:00"`}, nil},
		{"time a day ahead", map[string]string{"time": `1700086400`}, func(r *records.Record) { r.Time = 1700086400 }},
		{"epoch", map[string]string{"time": `0`}, func(r *records.Record) { r.Time = 0 }},
		{"protocol number", map[string]string{"protocol": `6`}, nil},
		{"protocol upper case", map[string]string{"protocol": `"TCP"`}, nil},
		{"protocol unnamed number", map[string]string{"protocol": `89`, "application": ""}, func(r *records.Record) {
			r.Protocol, r.Application = 89, records.Unknown
		}},
		{"udp", map[string]string{"protocol": `"udp"`, "application": ""}, func(r *records.Record) {
			r.Protocol, r.Application = records.UDP, "quic"
		}},
		{"application from port", map[string]string{"application": ""}, nil},
		{"application null", map[string]string{"application": `null`}, nil},
		{"application empty", map[string]string{"application": `""`}, nil},
		{"application lower-cased", map[string]string{"application": `"HTTPS"`}, nil},
		{"application unknown port", map[string]string{"application": "", "server": `{"ip": "93.184.216.34", "port": 4444, "bytes": 48000, "packets": 40}`},
			func(r *records.Record) { r.Application, r.Server.Port = records.Unknown, 4444 }},
		{"IPv6 canonical", map[string]string{"client": `{"ip": "2001:DB8:0:0::1", "port": 51234, "bytes": 1200, "packets": 9}`},
			func(r *records.Record) { r.Client.IP = netip.MustParseAddr("2001:db8::1") }},
		{"IPv4-mapped unmapped", map[string]string{"client": `{"ip": "::ffff:10.0.0.5", "port": 51234, "bytes": 1200, "packets": 9}`}, nil},
		{"defaults to zero", map[string]string{"server": `{"ip": "93.184.216.34"}`, "application": ""},
			func(r *records.Record) { r.Server = records.Endpoint{IP: r.Server.IP}; r.Application = records.Unknown }},
		{"exporter and interfaces", map[string]string{"exporter": `"::ffff:192.0.2.1"`, "in_if": `3`, "out_if": `4294967295`},
			func(r *records.Record) { r.Exporter, r.InIf, r.OutIf = netip.MustParseAddr("192.0.2.1"), 3, 4294967295 }},
		{"exporter null", map[string]string{"exporter": `null`, "in_if": `0`}, nil},
		{"capture fields", map[string]string{
			"client": `{"ip": "10.0.0.5", "port": 51234, "bytes": 1200, "packets": 9, "rtt": 0.0005, "rtt_samples": 2, "retrans": 1, "zero_windows": 0}`,
			"server": `{"ip": "93.184.216.34", "port": 443, "bytes": 48000, "packets": 40, "rtt": 0.04, "retrans": 3, "zero_windows": 2}`,
			"ct":     `0.0405`, "ct_samples": `1`, "srt": `0.25`, "srt_samples": `4`, "dtt": `0`, "dtt_samples": `4`,
			"resets": `1`, "server_name": `"WWW.Example.com"`},
			func(r *records.Record) {
				r.Client.RTT, r.Client.Retrans = records.Timing{Sum: 1000, Samples: 2}, 1
				r.Server.RTT, r.Server.Retrans, r.Server.ZeroWindows = records.Timing{Sum: 40000, Samples: 1}, 3, 2
				r.CT, r.SRT, r.DTT = records.Timing{Sum: 40500, Samples: 1}, records.Timing{Sum: 1000000, Samples: 4}, records.Timing{Samples: 4}
				r.Resets, r.ServerName = 1, "www.example.com"
			}},
		{"capture nulls", map[string]string{"srt": `null`, "srt_samples": `0`, "server_name": `null`, "resets": `0`}, nil},
		{"histograms", map[string]string{"srt": `0.25`, "srt_samples": `3`, "srt_hist": `[[300, 2], [352, 1]]`, "dtt_hist": `null`,
			"server": `{"ip": "93.184.216.34", "port": 443, "bytes": 48000, "packets": 40, "rtt": 0.04, "rtt_hist": [[265, 1]]}`},
			func(r *records.Record) {
				r.SRT = records.Timing{Sum: 750000, Samples: 3}
				r.SRT.Hist.AddIndex(300, 2)
				r.SRT.Hist.AddIndex(352, 1)
				r.Server.RTT = records.Timing{Sum: 40000, Samples: 1}
				r.Server.RTT.Hist.AddIndex(265, 1)
			}},
		{"largest counts", map[string]string{"client": `{"ip": "10.0.0.5", "port": 65535, "bytes": 9007199254740991, "packets": 9007199254740991}`},
			func(r *records.Record) {
				r.Client.Port, r.Client.Bytes, r.Client.Packets = 65535, records.MaxCount, records.MaxCount
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := records.ParseRecord(rec(t, tt.replace), testNow)
			if err != nil {
				t.Fatalf("ParseRecord: %v", err)
			}
			w := want
			if tt.edit != nil {
				tt.edit(&w)
			}
			if !reflect.DeepEqual(got, w) {
				t.Errorf("ParseRecord =\n%+v, want\n%+v", got, w)
			}
		})
	}
}

func TestParseRecordBad(t *testing.T) {
	t.Parallel()
	client := func(body string) map[string]string { return map[string]string{"client": body} }
	tests := []struct {
		name    string
		raw     string // used when replace is nil
		replace map[string]string
		field   string
	}{
		{"not an object", `[1]`, nil, ""},
		{"null", `null`, nil, ""},
		{"invalid JSON", `{"time": `, nil, ""},
		{"unknown field", "", map[string]string{"tim": `1`}, "tim"},
		{"unknown endpoint field", "", client(`{"ip": "10.0.0.5", "byte": 3}`), "client.byte"},
		{"missing time", "", map[string]string{"time": ""}, "time"},
		{"missing protocol", "", map[string]string{"protocol": ""}, "protocol"},
		{"missing client", "", map[string]string{"client": ""}, "client"},
		{"missing server", "", map[string]string{"server": ""}, "server"},
		{"missing ip", "", client(`{"port": 1}`), "client.ip"},
		{"time before 1970", "", map[string]string{"time": `-1`}, "time"},
		{"RFC 3339 before 1970", "", map[string]string{"time": `"1969-12-31T23:59:59Z"`}, "time"},
		{"time far future", "", map[string]string{"time": `1700086401`}, "time"},
		{"time huge", "", map[string]string{"time": `99999999999999999999`}, "time"},
		{"time fraction", "", map[string]string{"time": `1700000000.5`}, "time"},
		{"time exponent", "", map[string]string{"time": `1.7e9`}, "time"},
		{"time bad string", "", map[string]string{"time": `"yesterday"`}, "time"},
		{"time bool", "", map[string]string{"time": `true`}, "time"},
		{"time null", "", map[string]string{"time": `null`}, "time"},
		{"unknown protocol", "", map[string]string{"protocol": `"foo"`}, "protocol"},
		{"protocol too big", "", map[string]string{"protocol": `256`}, "protocol"},
		{"protocol negative", "", map[string]string{"protocol": `-1`}, "protocol"},
		{"protocol object", "", map[string]string{"protocol": `{}`}, "protocol"},
		{"application number", "", map[string]string{"application": `7`}, "application"},
		{"application too long", "", map[string]string{"application": `"` + strings.Repeat("a", 65) + `"`}, "application"},
		{"application control", "", map[string]string{"application": `"a\u0001"`}, "application"},
		{"client not object", "", client(`"10.0.0.5"`), "client"},
		{"bad address", "", client(`{"ip": "10.0.0.256"}`), "client.ip"},
		{"hostname", "", client(`{"ip": "example.com"}`), "client.ip"},
		{"CIDR", "", client(`{"ip": "10.0.0.0/8"}`), "client.ip"},
		{"zone", "", client(`{"ip": "fe80::1%eth0"}`), "client.ip"},
		{"ip number", "", client(`{"ip": 167772165}`), "client.ip"},
		{"empty ip", "", client(`{"ip": ""}`), "client.ip"},
		{"port too big", "", client(`{"ip": "10.0.0.5", "port": 65536}`), "client.port"},
		{"port negative", "", client(`{"ip": "10.0.0.5", "port": -1}`), "client.port"},
		{"port string", "", client(`{"ip": "10.0.0.5", "port": "80"}`), "client.port"},
		{"negative bytes", "", client(`{"ip": "10.0.0.5", "bytes": -1}`), "client.bytes"},
		{"negative packets", "", map[string]string{"server": `{"ip": "1.2.3.4", "packets": -5}`}, "server.packets"},
		{"bytes too big", "", client(`{"ip": "10.0.0.5", "bytes": 9007199254740992}`), "client.bytes"},
		{"bytes fraction", "", client(`{"ip": "10.0.0.5", "bytes": 1.5}`), "client.bytes"},
		{"bytes string", "", client(`{"ip": "10.0.0.5", "bytes": "1"}`), "client.bytes"},
		{"packets null", "", client(`{"ip": "10.0.0.5", "packets": null}`), "client.packets"},
		{"exporter name", "", map[string]string{"exporter": `"router1"`}, "exporter"},
		{"exporter number", "", map[string]string{"exporter": `3232235777`}, "exporter"},
		{"exporter zone", "", map[string]string{"exporter": `"fe80::1%eth0"`}, "exporter"},
		{"exporter unspecified", "", map[string]string{"exporter": `"::"`}, "exporter"},
		{"in_if negative", "", map[string]string{"in_if": `-1`}, "in_if"},
		{"out_if too big", "", map[string]string{"out_if": `4294967296`}, "out_if"},
		{"out_if string", "", map[string]string{"out_if": `"2"`}, "out_if"},
		{"rtt negative", "", client(`{"ip": "10.0.0.5", "rtt": -0.1}`), "client.rtt"},
		{"rtt string", "", client(`{"ip": "10.0.0.5", "rtt": "0.1"}`), "client.rtt"},
		{"rtt samples without rtt", "", client(`{"ip": "10.0.0.5", "rtt_samples": 3}`), "client.rtt_samples"},
		{"rtt with 0 samples", "", client(`{"ip": "10.0.0.5", "rtt": 0.1, "rtt_samples": 0}`), "client.rtt_samples"},
		{"rtt sum too big", "", client(`{"ip": "10.0.0.5", "rtt": 1e9, "rtt_samples": 9007199254740991}`), "client.rtt"},
		{"retrans negative", "", map[string]string{"server": `{"ip": "1.2.3.4", "retrans": -1}`}, "server.retrans"},
		{"zero_windows fraction", "", map[string]string{"server": `{"ip": "1.2.3.4", "zero_windows": 0.5}`}, "server.zero_windows"},
		{"srt huge", "", map[string]string{"srt": `1e400`}, "srt"},
		{"dtt samples negative", "", map[string]string{"dtt": `1`, "dtt_samples": `-1`}, "dtt_samples"},
		{"ct samples without ct", "", map[string]string{"ct_samples": `1`}, "ct_samples"},
		{"hist without time", "", map[string]string{"srt_hist": `[[1, 1]]`}, "srt_hist"},
		{"hist not a list", "", map[string]string{"srt": `1`, "srt_hist": `{"1": 1}`}, "srt_hist"},
		{"hist pair of three", "", map[string]string{"srt": `1`, "srt_hist": `[[1, 1, 1]]`}, "srt_hist"},
		{"hist index too big", "", map[string]string{"srt": `1`, "srt_hist": `[[640, 1]]`}, "srt_hist"},
		{"hist index negative", "", map[string]string{"srt": `1`, "srt_hist": `[[-1, 1]]`}, "srt_hist"},
		{"hist indexes not increasing", "", map[string]string{"srt": `1`, "srt_samples": `2`, "srt_hist": `[[5, 1], [5, 1]]`}, "srt_hist"},
		{"hist count zero", "", map[string]string{"srt": `1`, "srt_hist": `[[5, 0]]`}, "srt_hist"},
		{"hist counts not the samples", "", map[string]string{"dtt": `1`, "dtt_samples": `2`, "dtt_hist": `[[5, 3]]`}, "dtt_hist"},
		{"hist counts short of the samples", "", client(`{"ip": "10.0.0.5", "rtt": 0.1, "rtt_samples": 2, "rtt_hist": [[5, 1]]}`), "client.rtt_hist"},
		{"resets string", "", map[string]string{"resets": `"1"`}, "resets"},
		{"server_name number", "", map[string]string{"server_name": `5`}, "server_name"},
		{"server_name too long", "", map[string]string{"server_name": `"` + strings.Repeat("a", 254) + `"`}, "server_name"},
		{"server_name control", "", map[string]string{"server_name": `"a\u0001b"`}, "server_name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := json.RawMessage(tt.raw)
			if tt.replace != nil {
				raw = rec(t, tt.replace)
			}
			_, err := records.ParseRecord(raw, testNow)
			var re *records.RecordError
			if !errors.As(err, &re) {
				t.Fatalf("ParseRecord(%s) error = %v, want a *RecordError", raw, err)
			}
			if re.Field != tt.field || re.Reason == "" {
				t.Errorf("ParseRecord(%s) = %q, want field %q with a reason", raw, err, tt.field)
			}
		})
	}
}

func TestParseBatch(t *testing.T) {
	t.Parallel()
	good := json.RawMessage(goodRecord)
	bad := rec(t, map[string]string{"server": `{"ip": "nope"}`})
	got, err := records.ParseBatch([]json.RawMessage{good, good}, testNow)
	if err != nil || len(got) != 2 {
		t.Fatalf("ParseBatch(good, good) = %d records, %v", len(got), err)
	}
	got, err = records.ParseBatch([]json.RawMessage{good, bad, bad}, testNow)
	var be *records.BatchError
	if !errors.As(err, &be) || be.Index != 1 || got != nil {
		t.Fatalf("ParseBatch(good, bad, bad) = %v, %v; want no records and index 1", got, err)
	}
	var re *records.RecordError
	if !errors.As(err, &re) || re.Field != "server.ip" {
		t.Errorf("error %v does not wrap a server.ip *RecordError", err)
	}
	if want := "records: record 1: server.ip:"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q, want prefix %q", err, want)
	}
}

func TestRecordJSONRoundTrip(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		goodRecord,
		`{"time": 5, "protocol": 89, "client": {"ip": "2001:db8::1"}, "server": {"ip": "::1", "bytes": 3}}`,
		`{"time": 5, "protocol": "icmp", "client": {"ip": "10.1.1.1", "packets": 2}, "server": {"ip": "10.1.1.2"}}`,
		`{"time": 5, "protocol": "udp", "client": {"ip": "10.1.1.1"}, "server": {"ip": "10.1.1.2"}, "exporter": "2001:db8::9", "in_if": 4294967295, "out_if": 2}`,
		`{"time": 5, "protocol": "tcp", "client": {"ip": "10.1.1.1", "rtt": 0.000333, "rtt_samples": 3, "retrans": 2}, "server": {"ip": "10.1.1.2", "rtt": 0.04, "zero_windows": 1},
		  "ct": 0.0407, "srt": 0.123457, "srt_samples": 7, "dtt": 0, "dtt_samples": 2, "resets": 1, "server_name": "example.com"}`,
		`{"time": 5, "protocol": "tcp", "client": {"ip": "10.1.1.1", "rtt": 0.0003, "rtt_samples": 3, "rtt_hist": [[0, 1], [140, 2]]}, "server": {"ip": "10.1.1.2"},
		  "srt": 0.5, "srt_samples": 2, "srt_hist": [[300, 1], [639, 1]], "ct": 0.01, "ct_hist": [[226, 1]], "dtt": 0, "dtt_hist": [[0, 1]]}`,
	} {
		r, err := records.ParseRecord(json.RawMessage(raw), testNow)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		back, err := records.ParseRecord(b, testNow)
		if err != nil || !reflect.DeepEqual(back, r) {
			t.Errorf("round trip of %s through %s = %+v, %v", raw, b, back, err)
		}
	}
}

func FuzzParseRecord(f *testing.F) {
	f.Add([]byte(goodRecord))
	f.Add([]byte(`{"time": "2023-11-14T22:13:20Z", "protocol": 17, "client": {"ip": "::1"}, "server": {"ip": "1.2.3.4", "port": 53}}`))
	f.Add([]byte(`{"time": -1}`))
	f.Add([]byte(`{"time": 5, "protocol": 6, "client": {"ip": "::1"}, "server": {"ip": "1.2.3.4"}, "srt": 0.1, "srt_samples": 2, "srt_hist": [[300, 1], [301, 1]]}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"time": 5, "protocol": 6, "client": {"ip": "::1"}, "server": {"ip": "1.2.3.4"}, "layer": "http", "http": {"method": "GET", "status": 200, "host": "A.example:80", "path": "/x"}, "srt": 0.1}`))
	f.Add([]byte(`{"time": 5, "protocol": 17, "client": {"ip": "::1"}, "server": {"ip": "1.2.3.4"}, "layer": "dns", "dns": {"qname": "a.example.", "qtype": "AAAA", "rcode": "timeout"}}`))
	f.Add([]byte(`{"time": 5, "protocol": 6, "client": {"ip": "::1"}, "server": {"ip": "1.2.3.4"}, "layer": "tls", "tls": {"version": "1.3", "cipher": 4865, "not_after": 1893456000, "issuer": "CN=R3"}}`))
	f.Add([]byte(`{"time": 5, "protocol": 6, "client": {"ip": "::1"}, "server": {"ip": "1.2.3.4"}, "layer": "dns", "tls": {}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		r, err := records.ParseRecord(raw, testNow)
		if err != nil {
			var re *records.RecordError
			if !errors.As(err, &re) {
				t.Fatalf("error %v is not a *RecordError", err)
			}
			return
		}
		if err := r.Validate(testNow); err != nil {
			t.Fatalf("ParseRecord returned an invalid record: %v", err)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if back, err := records.ParseRecord(b, testNow); err != nil || !reflect.DeepEqual(back, r) {
			t.Fatalf("round trip through %s = %+v, %v; want %+v", b, back, err, r)
		}
	})
}
