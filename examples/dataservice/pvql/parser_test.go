package pvql

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestParseValid(t *testing.T) {
	t.Parallel()
	cases := []struct {
		expr   string
		values [][]string // per statement
		keys   [][]string
	}{
		{"traffic", [][]string{{"traffic"}}, [][]string{{}}},
		{"TOTAL Traffic", [][]string{{"traffic"}}, [][]string{{}}},
		{"traffic;", [][]string{{"traffic"}}, [][]string{{}}},
		{"  traffic , records  ", [][]string{{"traffic", "records"}}, [][]string{{}}},
		{"client.traffic / traffic AS \"ratio\", packets BY client.ip, time(60)",
			[][]string{{"ratio", "packets"}}, [][]string{{"client.ip", "time(60)"}}},
		{"(traffic + 1) * 2 - records / (packets - 3)",
			[][]string{{"(traffic + 1) * 2 - records / (packets - 3)"}}, [][]string{{}}},
		{"traffic - (records - packets)", [][]string{{"traffic - (records - packets)"}}, [][]string{{}}},
		{"1.5 * server.packets", [][]string{{"1.5 * server.packets"}}, [][]string{{}}},
		{"traffic by SERVER.IP, Protocol, application, client.port, server.port",
			[][]string{{"traffic"}}, [][]string{{"server.ip", "protocol", "application", "client.port", "server.port"}}},
		{"traffic; records BY protocol; packets",
			[][]string{{"traffic"}, {"records"}, {"packets"}}, [][]string{{}, {"protocol"}, {}}},
		{"traffic TOP 5 SINCE @now-3600 UNTIL @now FROM tcp HAVING traffic > 5 WHERE protocol = tcp BY client.ip",
			[][]string{{"traffic"}}, [][]string{{"client.ip"}}},
		{"traffic SINCE 1700000000 UNTIL @now + 60", [][]string{{"traffic"}}, [][]string{{}}},
		{"traffic SINCE -60 UNTIL 0", [][]string{{"traffic"}}, [][]string{{}}},
		{"P95(SRT), max(server.rtt) * 1000 BY application HAVING p50(ct) > 0.1",
			[][]string{{"p95(srt)", "max(server.rtt) * 1000"}}, [][]string{{"application"}}},
		{"traffic WHERE client.ip IN 10.0.0.0/8 AND server.ip IN (2001:db8::/32, '::1', 1.2.3.4) OR NOT (client.port < 1024)",
			[][]string{{"traffic"}}, [][]string{{}}},
		{"traffic WHERE protocol IN (tcp, 'UDP', 1) AND application != https AND application = \"it\\\"s\"",
			[][]string{{"traffic"}}, [][]string{{}}},
		{"traffic WHERE NOT NOT ((server.port >= 0))", [][]string{{"traffic"}}, [][]string{{}}},
		{"traffic AS \"t\" HAVING t > 1 AND \"t\" IN (1, -2.5) OR ((t + 1) * 2 <= 3) OR (((t)) != 0)",
			[][]string{{"t"}}, [][]string{{}}},
		{"traffic HAVING (traffic > 5 AND records < 2) OR packets >= 1", [][]string{{"traffic"}}, [][]string{{}}},
	}
	for _, tc := range cases {
		t.Run(tc.expr, func(t *testing.T) {
			stmts, err := Parse(tc.expr)
			if err != nil {
				t.Fatal(err)
			}
			if len(stmts) != len(tc.values) {
				t.Fatalf("%d statements, want %d", len(stmts), len(tc.values))
			}
			for i, st := range stmts {
				if got := st.Values(); !reflect.DeepEqual(got, tc.values[i]) {
					t.Errorf("statement %d values %q, want %q", i+1, got, tc.values[i])
				}
				if got := st.Keys(); !reflect.DeepEqual(got, tc.keys[i]) {
					t.Errorf("statement %d keys %q, want %q", i+1, got, tc.keys[i])
				}
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		expr     string
		position int
		expected string // a prefix of SyntaxError.Expected
	}{
		{"", 0, expValue},
		{";", 0, expValue},
		// A key of another layer names its layer, wherever FROM stands.
		{"records BY http.host", 11, "a key of layer transport, or FROM http"},
		{"records FROM dns WHERE http.status = 200", 23, "a key of layer dns, or FROM http"},
		{"p95(srt) BY tls.version WHERE dns.qtype = A FROM tls", 30, "a key of layer tls, or FROM dns"},
		{"records FROM tcp BY tls.cipher", 20, "a key of layer transport, or FROM tls"},
		{"min(tls.not_after) BY server.name FROM http", 4, "a key of layer http, or FROM tls"},
		{"traffic HAVING traffic > baseline(max(tls.not_after), 7d) FROM tls", 34, expValue},
		{"min(srt)", 0, expValue},
		{"records FROM http WHERE http.status = 1000", 38, "an HTTP status"},
		{"records FROM tls WHERE tls.version = 1.4", 37, "a TLS version"},
		{"records FROM dns WHERE dns.rcode IN (NOERROR, BOGUS)", 46, "a DNS response code"},
		{"records FROM dns WHERE dns.qtype = 65536", 35, "a DNS type"},
		{"traffic;;records", 8, expValue},
		{"p95(rtt) BY application", 4, expQuantile},
		{"p95(eurt)", 4, expQuantile},
		{"max(traffic)", 4, expQuantile},
		{"p50()", 4, expQuantile},
		{"p99(srt BY application", 8, "\")\""},
		{"baseline(p95(srt), 1d)", 9, expValue},
		{"p95", 0, expValue},
		{"trafic", 0, expValue},
		{"client.ip", 0, expValue},
		{"BY client.ip", 0, expValue},
		{"traffic +", 9, expValue},
		{"traffic * (", 11, expValue},
		{"(((traffic", 10, "an operator"},
		{"traffic )", 8, "\",\", AS, an operator"},
		{"traffic AS x", 11, "an alias in quotes"},
		{"traffic AS \"a\", records AS \"a\"", 27, "an alias not used"},
		{"traffic 'abc", 8, "\",\""},
		{"traffic # x", 8, "\",\""},
		{"traffic BY", 10, expKey},
		{"traffic BY nothing", 11, expKey},
		{"traffic BY traffic", 11, expKey},
		{"traffic BY time", 15, "\"(\""},
		{"traffic BY time(0)", 16, "a number of seconds"},
		{"traffic BY time(4294967297)", 16, "a number of seconds (1 to 4294967296)"},
		{"traffic BY time(60", 18, "\")\""},
		{"traffic BY client.ip, CLIENT.IP", 22, "a key not given"},
		{"traffic BY client.ip records", 21, "\",\", a clause"},
		{"traffic FROM ip", 13, expLayer},
		{"traffic WHERE", 13, expField},
		{"traffic WHERE traffic > 5", 14, expField},
		{"traffic WHERE time > 5", 14, expField},
		{"traffic WHERE client.ip", 23, expCompare},
		{"traffic WHERE client.ip = 10.0.0.0/8", 26, "an IP address"},
		{`traffic WHERE client.zone = "/"`, 28, "a zone name"},
		{`traffic WHERE client.zone = "HQ//"`, 28, "a zone name"},
		{`traffic WHERE client.zone != "HQ/"`, 29, "a zone name"},
		{`traffic WHERE server.zone IN "other/"`, 29, "a zone name"},
		{`traffic WHERE server.zone IN 5`, 29, "\"(\""},
		{`traffic WHERE client.asn = "GOOGLE"`, 27, "an AS number"},
		{`traffic WHERE in_if = 4294967296`, 22, "an interface index"},
		{`traffic WHERE server.country = "FRA"`, 31, "a country code"},
		{"traffic WHERE client.ip = 1.2.3", 26, "an IP address"},
		{"traffic WHERE client.port = 70000", 28, "a port number"},
		{"traffic WHERE client.port IN 10.0.0.0/8", 29, "\"(\""},
		{"traffic WHERE protocol = foo", 25, "a protocol"},
		{"traffic WHERE protocol = 256", 25, "a protocol"},
		{"traffic WHERE application = 5", 28, "an application name"},
		{"traffic WHERE server.as_path > 64500", 29, "=, != or IN"},
		{"traffic WHERE server.as_path = 4294967296", 31, "an AS number"},
		{"traffic WHERE client.communities = \"65536:1\"", 35, "a community"},
		{"traffic WHERE client.communities IN (\"1:2:3:4\")", 37, "a community"},
		{"traffic WHERE client.communities = 65000", 35, "a community"},
		{"traffic WHERE client.ip IN (10.0.0.1", 36, "\",\" or \")\""},
		{"traffic WHERE (client.port = 1", 30, "AND, OR or \")\""},
		{"traffic WHERE client.port = 1 AND", 33, expField},
		{"traffic WHERE application = 'é' x", 32, "AND, OR, a clause"},
		{"traffic HAVING traffic", 22, "an operator"},
		{"traffic HAVING (traffic + 1) AND", 29, "an operator"},
		{"traffic HAVING \"x\" > 1", 15, expAlias},
		{"traffic HAVING x > 1", 15, expAlias},
		{"traffic HAVING traffic > x", 25, expNumber},
		{"traffic TOP 0", 12, "a positive integer"},
		{"traffic TOP 1.5", 12, "a positive integer"},
		{"traffic TOP 5 TOP 6", 14, "a clause not given before"},
		{"traffic SINCE", 13, expTime},
		{"traffic SINCE @then", 14, expTime},
		{"traffic SINCE @now-", 19, "a number of seconds"},
		{"traffic UNTIL 99999999999999999999", 14, expTime},
		{"traffic HAVING traffic > 1e", 25, expNumber},
		{"traffic HAVING traffic > 1e+", 25, expNumber},
		{"traffic HAVING traffic > 2.5E-x", 25, expNumber},
		{"traffic HAVING traffic > 1e9x", 25, expNumber},
		{"traffic HAVING traffic > 1e400", 25, expNumber},
		{"traffic * 1e+ HAVING traffic > 1", 10, expValue},
		{"traffic TOP 1e3", 12, "a positive integer"},
		{"traffic SINCE @now-1e3", 19, "a number of seconds"},
		{strings.Repeat("(", MaxDepth+1) + "traffic" + strings.Repeat(")", MaxDepth+1), MaxDepth, "at most 64 nested"},
		{"traffic WHERE " + strings.Repeat("NOT ", MaxDepth+1) + "protocol = 6", 14 + 4*MaxDepth, "at most 64 nested"},
		{"traffic" + strings.Repeat(" ", MaxLength), MaxLength, "an expression of at most"},
		{strings.Repeat("traffic;", MaxStatements+1), 8 * MaxStatements, "at most 100 statements"},
	}
	for _, tc := range cases {
		t.Run(tc.expr[:min(len(tc.expr), 60)], func(t *testing.T) {
			_, err := Parse(tc.expr)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want a *SyntaxError", err)
			}
			if se.Position != tc.position || !strings.HasPrefix(se.Expected, tc.expected) {
				t.Errorf("error at %d expecting %q, want at %d expecting %q...", se.Position, se.Expected, tc.position, tc.expected)
			}
			if se.Message == "" || !strings.Contains(se.Error(), se.Expected) {
				t.Errorf("Error() = %q lacks a message or what was expected", se.Error())
			}
		})
	}
}

// TestParseNumbers checks decimal exponents: HAVING traffic > 1e9 compares with a billion.
func TestParseNumbers(t *testing.T) {
	t.Parallel()
	for expr, want := range map[string]float64{
		"1e9": 1e9, "2.5e6": 2.5e6, "1E3": 1000, "1e+3": 1000, "25e-1": 2.5, "1e-999": 0, "12": 12, "1.5": 1.5,
	} {
		sts, err := Parse("traffic HAVING traffic > " + expr)
		if err != nil {
			t.Errorf("%s: %v", expr, err)
			continue
		}
		vf, ok := sts[0].having.(*valueFilter)
		if !ok || len(vf.nums) != 1 || vf.nums[0] != want {
			t.Errorf("HAVING traffic > %s: %#v, want a comparison with %g", expr, sts[0].having, want)
		}
	}
	// An IPv6 address that looks like an exponent stays an address.
	if _, err := Parse("traffic WHERE server.ip = 1e9::1"); err != nil {
		t.Error(err)
	}
}

func TestParseDeepButValid(t *testing.T) {
	t.Parallel()
	expr := strings.Repeat("(", MaxDepth) + "traffic" + strings.Repeat(")", MaxDepth)
	if err := Validate(expr); err != nil {
		t.Errorf("%d nested parentheses: %v", MaxDepth, err)
	}
	long := "traffic" + strings.Repeat(" + traffic", (MaxLength-7)/10)
	if err := Validate(long); err != nil {
		t.Errorf("expression of %d characters: %v", len(long), err)
	}
}

func TestFields(t *testing.T) {
	t.Parallel()
	kinds := map[string]int{}
	names := map[string]bool{}
	for _, f := range Fields() {
		if f.Name == "" || f.Type == "" || f.Description == "" {
			t.Errorf("incomplete field %+v", f)
		}
		if names[f.Name] {
			t.Errorf("field %q listed twice", f.Name)
		}
		if layer, _, _ := strings.Cut(f.Name, "."); f.Kind == "key" && slices.Contains([]string{"http", "dns", "tls"}, layer) != reflect.DeepEqual(f.Layers, []string{layer}) {
			t.Errorf("field %s: layers %v", f.Name, f.Layers)
		}
		if strings.HasSuffix(f.Name, "(tls.not_after)") && !reflect.DeepEqual(f.Layers, []string{"tls"}) {
			t.Errorf("field %s: layers %v, want tls", f.Name, f.Layers)
		}
		names[f.Name] = true
		kinds[f.Kind]++
	}
	want := map[string]int{"metric": 22, "function": 4, "key": 33, "layer": 8}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("kinds %v, want %v", kinds, want)
	}
	for _, n := range []string{"traffic", "records", "client.ip", "time(N)", "application", "transport", "icmp", "server.rtt", "eurt", "retrans", "server.name", "client.zone", "server.asn", "in_if", "exporter.name", "p95(m)", "max(m)", "min(tls.not_after)", "max(tls.not_after)"} {
		if !names[n] {
			t.Errorf("field %q missing", n)
		}
	}
}

// FuzzParse checks that Parse never panics and that every error is a *SyntaxError whose
// position lies within the input.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"traffic", "traffic BY client.ip TOP 5", "client.traffic / traffic AS \"r\" BY time(60) HAVING r > 0.5",
		"records WHERE client.ip IN 10.0.0.0/8 AND NOT (protocol = tcp OR application IN ('dns', \"ntp\"))",
		"traffic SINCE @now-3600 UNTIL @now; packets FROM udp", "traffic HAVING ((traffic + 1) * 2 > 3)",
		"traffic WHERE server.ip >= 2001:db8::1 OR server.ip IN (::ffff:1.2.3.4, fd00::/8)", "'", "@", "((", "\x00",
		"traffic BY server.ip HAVING traffic > 3 * baseline(traffic, 7d, 2) SINCE @now-3600", "baseline(packets, 90", "p95(srt) BY application HAVING max(ct) > 0.1", "p99(", "max(rtt)",
		"traffic HAVING traffic > 2.5e-6 OR records < 1E+9", "1e", "1e+", "9e9999",
		"p95(srt) BY http.host FROM http HAVING p95(srt) > 0.5", "records FROM dns WHERE dns.qtype IN (A, \"AAAA\", 15) AND dns.rcode = timeout",
		"records BY tls.version, tls.cipher WHERE tls.not_after < 1900000000 FROM tls", "records BY http.path FROM dns",
		"0 - min(tls.not_after), max(tls.not_after) BY server.name FROM tls HAVING min(tls.not_after) < 1900000000 TOP 10", "min(tls.not_after",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		_, err := Parse(expr)
		if err == nil {
			return
		}
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("Parse(%q) = %v, not a *SyntaxError", expr, err)
		}
		if n := len([]rune(expr)); se.Position < 0 || se.Position > n {
			t.Fatalf("Parse(%q): position %d outside 0..%d", expr, se.Position, n)
		}
		if se.Expected == "" || se.Message == "" {
			t.Fatalf("Parse(%q): empty Expected or Message in %#v", expr, se)
		}
	})
}
