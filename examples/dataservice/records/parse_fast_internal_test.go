package records

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"
)

var fastNow = time.Unix(1700000000, 0)

// fastSeeds are records in the forms the fast path takes and in many it leaves to
// parseReference: escapes, duplicates, other white space, numbers with fractions and exponents,
// bad values of every field.
var fastSeeds = []string{
	`{"time": 1700000000, "protocol": "tcp", "application": "https",
 "client": {"ip": "10.0.0.5", "port": 51234, "bytes": 1200, "packets": 9},
 "server": {"ip": "93.184.216.34", "port": 443, "bytes": 48000, "packets": 40}}`,
	`{"time":1700000000,"protocol":"tcp","application":"https","client":{"ip":"10.0.0.5","port":51234,"bytes":1200,"packets":9},"server":{"ip":"93.184.216.34","port":443,"bytes":48000,"packets":40}}`,
	`{"time": "2023-11-14T22:13:20Z", "protocol": 17, "client": {"ip": "::1"}, "server": {"ip": "1.2.3.4", "port": 53}}`,
	`{"time": "2023-11-14T23:13:20.75+01:00", "protocol": "UDP", "application": null, "client": {"ip": "::ffff:10.0.0.5"}, "server": {"ip": "2001:DB8::1", "port": 443}}`,
	`{"time": 0, "protocol": 89, "application": "", "client": {"ip": "0.0.0.0", "port": 0}, "server": {"ip": "255.255.255.255", "packets": 9007199254740991, "bytes": 9007199254740991}}`,
	`{"server": {"ip": "1.2.3.4"}, "client": {"ip": "fe80::1"}, "protocol": "ICMPv6", "application": "Ping", "time": 1700086400, "exporter": "192.0.2.1", "in_if": 3, "out_if": 4294967295}`,
	"\t{\r\n\"time\"\n:\t5 ,\"protocol\":\"gre\",\"client\":{ \"ip\" : \"1.1.1.1\" } ,\"server\":{\"ip\":\"::\"}}\n",
	`{"time": 1700086401, "protocol": "tcp", "client": {"ip": "1.2.3.4"}, "server": {"ip": "1.2.3.4"}}`,
	`{"time": 1700000000, "time": 5, "protocol": "tcp", "client": {"ip": "1.2.3.4"}, "server": {"ip": "1.2.3.4"}}`,
	`{"time": 5, "protocol": "tcp", "client": {"ip": "1.2.3.4", "ip": "::2"}, "server": {"ip": "1.2.3.4"}}`,
	`{"\u0074ime": 5, "protocol": "tcp", "client": {"ip": "1.2.3.4"}, "server": {"ip": "1.2.3.4"}}`,
	`{"Time": 5, "protocol": "tcp", "client": {"ip": "1.2.3.4"}, "server": {"ip": "1.2.3.4"}}`,
	`{"time": -0, "protocol": "tcp", "client": {"ip": "1.2.3.4"}, "server": {"ip": "1.2.3.4"}}`,
	`{"time": 1.0, "protocol": 6e0, "client": {"ip": "1.2.3.4", "port": 1E2}, "server": {"ip": "1.2.3.4"}}`,
	`{"time": 01, "protocol": "tcp", "client": {"ip": "1.2.3.4"}, "server": {"ip": "1.2.3.4"}}`,
	`{"time": 5, "protocol": "tcp", "application": "h\u0074tps", "client": {"ip": "1.2.3.4"}, "server": {"ip": "1.2.3.4"}}`,
	"{\"time\": 5, \"protocol\": \"tcp\", \"application\": \"caf\xc3\xa9\", \"client\": {\"ip\": \"1.2.3.4\"}, \"server\": {\"ip\": \"1.2.3.4\"}}",
	"{\"time\": 5, \"protocol\": \"tcp\", \"application\": \"a\xff\", \"client\": {\"ip\": \"1.2.3.4\"}, \"server\": {\"ip\": \"1.2.3.4\"}}",
	`{"time": 5, "protocol": "tcp", "application": "` + strings.Repeat("a", 65) + `", "client": {"ip": "1.2.3.4"}, "server": {"ip": "1.2.3.4"}}`,
	`{"time": 5, "protocol": "tcp", "client": {"ip": "01.2.3.4"}, "server": {"ip": "1.2.3.4"}}`,
	`{"time": 5, "protocol": "tcp", "client": {"ip": "1.2.3.256"}, "server": {"ip": "1.2.3"}}`,
	`{"time": 5, "protocol": "tcp", "client": {"ip": "fe80::1%eth0"}, "server": {"ip": "1.2.3.4.5"}}`,
	`{"time": 5, "protocol": "tcp", "client": {"ip": "1.2.3.4", "port": 65536}, "server": {"ip": "1.2.3.4", "bytes": 9007199254740992}}`,
	`{"time": 5, "protocol": 256, "client": {"ip": "1.2.3.4"}, "server": {"ip": "1.2.3.4"}}`,
	`{"time": 5, "protocol": "tcp", "client": {"ip": "1.2.3.4"}, "server": {"ip": "1.2.3.4"}} x`,
	`{"time": 5, "protocol": "tcp", "client": {"ip": "1.2.3.4"}, "server": {"ip": "1.2.3.4"},}`,
	`{"time": 5, "protocol": "tcp", "client": {"ip": "1.2.3.4"}, "server": {"ip": "1.2.3.4"}`,
	"\v{\"time\": 5, \"protocol\": \"tcp\", \"client\": {\"ip\": \"1.2.3.4\"}, \"server\": {\"ip\": \"1.2.3.4\"}}",
	`{"time": 5, "protocol": "tcp", "client": {}, "server": {"ip": "1.2.3.4"}}`,
	`{"time": 99999999999999999999, "protocol": "tcp", "client": {"ip": "1.2.3.4"}, "server": {"ip": "1.2.3.4"}}`,
	`{"time": "1969-12-31T23:59:59Z", "protocol": "tcp", "client": {"ip": "1.2.3.4"}, "server": {"ip": "1.2.3.4"}}`,
	`{"time": 5, "protocol": "tcp", "application": 7, "client": {"ip": "1.2.3.4"}, "server": {"ip": "1.2.3.4"}}`,
	`{"time": 5, "protocol": null, "client": {"ip": "1.2.3.4"}, "server": null}`,
	`{"time": 5, "protocol": "tcp", "client": {"ip": "1.2.3.4"}, "server": {"ip": "1.2.3.4"}, "exporter": null, "in_if": 0}`,
	`{"time": 5, "protocol": "tcp", "client": {"ip": "1.2.3.4"}, "server": {"ip": "1.2.3.4"}, "exporter": "::"}`,
	`{"time": 5, "protocol": "tcp", "client": {"ip": "1.2.3.4"}, "server": {"ip": "1.2.3.4"}, "exporter": "::ffff:10.1.1.1", "out_if": 7}`,
	`{"time": 5, "protocol": "tcp", "client": {"ip": "1.2.3.4"}, "server": {"ip": "1.2.3.4"}, "exporter": "router", "in_if": 4294967296}`,
	`{"time": 5, "protocol": "tcp", "client": {"ip": "1.2.3.4"}, "server": {"ip": "1.2.3.4"}, "in_if": -1, "out_if": 1.5}`,
	`{"time": 5, "protocol": "tcp", "client": {"ip": "1.2.3.4"}, "server": {"ip": "1.2.3.4"}, "exporter": "fe80::1%eth0", "exporter": 5}`,
	`{}`, `[]`, `null`, ``, `{"time": `,
	`{"time": 5, "protocol": "tcp", "client": {"ip": "1.2.3.4", "rtt": 0.001, "rtt_samples": 2, "retrans": 1, "zero_windows": 0}, "server": {"ip": "1.2.3.4", "rtt": 0.04}, "srt": 0.2, "srt_samples": 1, "ct": 0.041, "dtt": 0, "dtt_samples": 1, "resets": 2, "server_name": "www.example.com"}`,
	`{"time": 5, "protocol": "tcp", "client": {"ip": "1.2.3.4", "rtt_samples": 2}, "server": {"ip": "1.2.3.4", "rtt": -1}, "srt": "0.2", "server_name": 7}`,
	`{"time": 5, "protocol": "tcp", "client": {"ip": "1.2.3.4"}, "server": {"ip": "1.2.3.4"}, "srt": 1e400, "dtt": 0, "dtt_samples": 0, "resets": -1}`,
	`{"time": 5, "protocol": "tcp", "client": {"ip": "1.2.3.4", "rtt": 0.001, "rtt_samples": 2, "rtt_hist": [[3, 1], [200, 1]]}, "server": {"ip": "1.2.3.4"}, "srt": 0.2, "srt_hist": [[340, 1]]}`,
	`{"time": 5, "protocol": "tcp", "client": {"ip": "1.2.3.4"}, "server": {"ip": "1.2.3.4"}, "dtt": 0.2, "dtt_samples": 2, "dtt_hist": [[340, 1], [2, 1]], "ct_hist": [[1, 1]]}`,
	`{"time": 5, "protocol": "tcp", "client": {"ip": "1.2.3.4"}, "server": {"ip": "1.2.3.4"}, "layer": "http", "http": {"method": "GET", "status": 200, "host": "a.example", "path": "/x"}}`,
	`{"time": 5, "protocol": "udp", "client": {"ip": "1.2.3.4"}, "server": {"ip": "1.2.3.4"}, "layer": "dns", "dns": {"qname": "a.example", "qtype": "A", "rcode": 3}}`,
	`{"time": 5, "protocol": "tcp", "client": {"ip": "1.2.3.4"}, "server": {"ip": "1.2.3.4"}, "layer": "tls", "tls": {"version": "1.2", "cipher": "TLS_AES_128_GCM_SHA256"}, "http": {}}`,
}

// FuzzParseFast checks the fast path against the reference parser: for any input it either
// declines or returns exactly the record parseReference returns, with no error.
func FuzzParseFast(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add([]byte(s))
	}
	limit := fastNow.Add(MaxFuture).Unix()
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, ok := parseFast(raw, limit)
		want, err := parseReference(raw, fastNow)
		if ok && (err != nil || !reflect.DeepEqual(got, want)) {
			t.Fatalf("parseFast(%q) = %+v; parseReference = %+v, %v", raw, got, want, err)
		}
		r, err2 := ParseRecord(raw, fastNow)
		if !reflect.DeepEqual(r, want) || fmt.Sprint(err2) != fmt.Sprint(err) {
			t.Fatalf("ParseRecord(%q) = %+v, %v; parseReference = %+v, %v", raw, r, err2, want, err)
		}
	})
}

// TestParseFastTakes checks that the fast path takes the usual forms of a record, so that
// FuzzParseFast compares something and ParseBatch is fast on them.
func TestParseFastTakes(t *testing.T) {
	t.Parallel()
	limit := fastNow.Add(MaxFuture).Unix()
	for i, s := range fastSeeds[:7] {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			if _, ok := parseFast([]byte(s), limit); !ok {
				t.Errorf("parseFast declines %s", s)
			}
		})
	}
}

// TestParseBatchFirstBad checks that ParseBatch names the first bad record of a batch, wherever
// the bad ones are, and returns the records of a good one.
func TestParseBatchFirstBad(t *testing.T) {
	t.Parallel()
	good := []byte(fastSeeds[0])
	bad := []byte(`{"time": 5, "protocol": "tcp", "client": {"ip": "1.2.3.4"}, "server": {"ip": "nope"}}`)
	for _, n := range []int{1, 10, 10_000} {
		for _, bads := range [][]int{nil, {0}, {n - 1}, {n / 2}, {n / 2, n - 1}, {n / 3, 1}, {n - 2, n / 2}} {
			t.Run(fmt.Sprint(n, bads), func(t *testing.T) {
				raw := make([]json.RawMessage, n)
				for i := range raw {
					raw[i] = good
				}
				first := n
				for _, i := range bads {
					if i >= 0 && i < n {
						raw[i] = bad
						first = min(first, i)
					}
				}
				got, err := ParseBatch(raw, fastNow)
				if first == n {
					want := Record{Time: 1700000000, Protocol: TCP, Application: "https",
						Client: Endpoint{IP: netip.MustParseAddr("10.0.0.5"), Port: 51234, Bytes: 1200, Packets: 9},
						Server: Endpoint{IP: netip.MustParseAddr("93.184.216.34"), Port: 443, Bytes: 48000, Packets: 40}}
					if err != nil || len(got) != n || !reflect.DeepEqual(got[0], want) || !reflect.DeepEqual(got[n-1], want) {
						t.Fatalf("ParseBatch = %d records, %v", len(got), err)
					}
					return
				}
				var be *BatchError
				if !errors.As(err, &be) || be.Index != first || got != nil {
					t.Fatalf("ParseBatch = %d records, %v; want the error of record %d", len(got), err, first)
				}
			})
		}
	}
}
