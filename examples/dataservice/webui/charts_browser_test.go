package webui_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// testCharts checks the page's reading of query texts and formatting of values, in the browser.
func testCharts(t *testing.T, browser context.Context, base string) {
	tab, cancel := chromedp.NewContext(browser)
	defer cancel()
	if err := chromedp.Do(tab); err != nil { // opens the tab for the context's life
		t.Fatalf("opening a tab: %v", err)
	}
	p := &page{t: t, ctx: tab}
	p.do(chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("#login-form")))
	describe := []struct {
		expr, want string
	}{
		{"traffic", `[{"keys":[],"values":[{"name":"traffic","unit":"bytes"}]}]`},
		{`total traffic AS "Bytes", packets BY time(60), protocol WHERE application = "dns"; records`,
			`[{"keys":["time(60)","protocol"],"values":[{"name":"Bytes","unit":"bytes"},{"name":"packets","unit":"packets"}]},` +
				`{"keys":[],"values":[{"name":"records","unit":"count"}]}]`},
		{"client.traffic / traffic BY server.ip TOP 5", `[{"keys":["server.ip"],"values":[{"name":"client.traffic / traffic","unit":""}]}]`},
		{"traffic + packets WHERE (protocol = 'tcp' OR server.port IN (80, 443)) BY client.ip",
			`[{"keys":["client.ip"],"values":[{"name":"traffic + packets","unit":""}]}]`},
		{"traffic BY client.ip, time ( 300 ) SINCE @now-600;", `[{"keys":["client.ip","time(300)"],"values":[{"name":"traffic","unit":"bytes"}]}]`},
		{"", `[]`},
		{"p95(srt), srt, retrans BY application", `[{"keys":["application"],"values":[{"name":"p95(srt)","unit":"seconds"},{"name":"srt","unit":"seconds"},{"name":"retrans","unit":"count"}]}]`},
	}
	for _, tt := range describe {
		t.Run("describe "+tt.expr, func(t *testing.T) {
			p := &page{t: t, ctx: tab}
			js := fmt.Sprintf(`import('/charts.js').then(m => JSON.stringify(m.describeQuery(%q)))`, tt.expr)
			if got := p.eval(js); got != tt.want {
				t.Errorf("describeQuery(%q)\n got %s\nwant %s", tt.expr, got, tt.want)
			}
		})
	}
	rewrites := []struct {
		name, js, want string
	}{
		{"a preset", `P('traffic BY time(60)', {since: '@now-21600', until: '@now', span: 21600})`,
			"traffic BY time(60) SINCE @now-21600 UNTIL @now"},
		{"own period replaced, time widened", `P('traffic BY time(60) SINCE @now - 600 WHERE protocol = tcp; records UNTIL @now', {since: '1700000000', until: '1702592000', span: 2592000})`,
			"traffic BY time(7200)  WHERE protocol = tcp SINCE 1700000000 UNTIL 1702592000; records  SINCE 1700000000 UNTIL 1702592000"},
		{"filter ANDed to WHERE", `F('traffic BY application WHERE protocol = tcp OR protocol = udp TOP 5', 'application = "dns"')`,
			`traffic BY application WHERE (protocol = tcp OR protocol = udp) AND application = "dns" TOP 5`},
		{"filter of one statement", `F('traffic BY protocol; records', 'protocol = tcp', 1)`, "traffic BY protocol; records WHERE protocol = tcp"},
		{"drill-down in one statement", `x.drillQuery('traffic BY protocol; records BY protocol', [{name: 'protocol', value: 'udp'}], [{name: 'protocol', type: 'protocol'}], 1)`,
			"traffic BY protocol; records BY protocol WHERE protocol = udp"},
		{"error position maps back", `(() => { const e = 'traffic BY time(60) WHERE nosuch = 1'; const r = q.rewrite(e, q.periodEdits(e, {since: '1', until: '2592001', span: 2592000})); return String(r.toSource(r.text.indexOf('nosuch'))); })()`,
			"26"},
		{"drill-down breaks down by the next key", `x.drillQuery('traffic BY application, protocol TOP 5', [{name: 'application', value: 'dns'}, {name: 'protocol', value: 'udp'}], [])`,
			`traffic BY server.ip, server.port TOP 5 WHERE application = "dns" AND protocol = "udp"`},
		{"no filter twice", `x.drillQuery('traffic BY server.ip WHERE application = "dns"', [{name: 'application', value: 'dns'}], [])`,
			`traffic BY server.ip WHERE application = "dns"`},
		{"drill-down literals", `[x.drillQuery('traffic BY server.ip, application, time(60)', [{name: 'server.ip', value: '10.0.0.1'}, {name: 'application', value: 'a"b'}, {name: 'time(60)', value: 60}], [{name: 'server.ip', type: 'ip'}, {name: 'application', type: 'string'}]), x.drillQuery('records', [{name: 'protocol', value: 'tcp'}, {name: 'server.port', value: 443}], [{name: 'protocol', type: 'protocol'}])].join(' | ')`,
			`traffic BY server.ip, application, time(60) WHERE server.ip = 10.0.0.1 AND application = "a\"b" | records WHERE protocol = tcp AND server.port = 443`},
		{"drill-down from a country to its ASes", `x.drillQuery('traffic BY server.country TOP 10', [{name: 'server.country', value: 'FR'}], [{name: 'server.country', type: 'country'}, {name: 'server.asn', type: 'asn'}])`,
			`traffic BY server.asn TOP 10 WHERE server.country = "FR"`},
		{"drill-down from an AS, an interface, a zone", `[x.drillQuery('traffic BY client.asn', [{name: 'client.asn', value: {asn: 15169, name: 'GOOGLE'}}], [{name: 'client.asn', type: 'asn'}, {name: 'client.ip', type: 'ip'}]), x.drillQuery('traffic BY in_if', [{name: 'in_if', value: {index: 3, name: 'ge-0/0/1', alias: null}}], [{name: 'in_if', type: 'interface'}, {name: 'application', type: 'string'}]), x.drillQuery('traffic BY client.zone', [{name: 'client.zone', value: 'other'}], [{name: 'client.zone', type: 'zone'}, {name: 'client.ip', type: 'ip'}]), x.drillQuery('traffic BY server.country', [{name: 'server.country', value: null}], [])].join(' | ')`,
			`traffic BY client.ip WHERE client.asn = 15169 | traffic BY application WHERE in_if = 3 | traffic BY client.ip WHERE client.zone = "other" | traffic BY server.asn WHERE server.country = null`},
		{"context keys shown", `Promise.all([import('/format.js')]).then(([f]) => [f.formatKey('server.asn', {asn: 15169, name: 'GOOGLE'}), f.formatKey('in_if', {index: 3, name: 'ge-0/0/1', alias: 'uplink'}), f.formatKey('out_if', {index: 7, name: null, alias: null}), f.formatKey('client.country', 'FR').startsWith('\u{1F1EB}\u{1F1F7} '), f.formatKey('client.zone', 'other')].join(' | '))`,
			`AS15169 GOOGLE | ge-0/0/1 (uplink) | #7 | true | other`},
		{"drill-down from a route's path and communities", `[x.drillQuery('traffic BY server.as_path', [{name: 'server.as_path', value: [64500, 15169]}], [{name: 'server.as_path', type: 'as_path'}, {name: 'server.ip', type: 'ip'}]), x.drillQuery('traffic BY client.communities', [{name: 'client.communities', value: ['65000:100', '4200000000:1:2']}], [{name: 'client.communities', type: 'communities'}, {name: 'client.as_path', type: 'as_path'}]), x.drillQuery('traffic BY server.as_path', [{name: 'server.as_path', value: null}], [])].join(' | ')`,
			`traffic BY server.ip WHERE server.as_path = 64500 AND server.as_path = 15169 | traffic BY client.as_path WHERE client.communities = "65000:100" AND client.communities = "4200000000:1:2" | traffic BY server.ip WHERE server.as_path = null`},
		{"route keys shown", `import('/format.js').then((f) => [f.formatKey('server.as_path', [64500, 15169]), f.formatKey('client.communities', ['65000:100', '1:2:3'])].join(' | '))`,
			`AS64500 › AS15169 | 65000:100 1:2:3`},
		{"route panel", `import('/route.js').then((r) => { const box = document.createElement('section');
				const a = r.addressFilter('traffic BY application WHERE server.ip = 198.51.100.7');
				r.renderRoute(box, a.addr, {data: [[[[64500, 64510], ['65000:100', '4200000000:1:2']], [12]], [[null, null], [3]], [[null, ['65000:1']], [2]]]});
				const shown = [a.side, r.routeQuery(a.side, a.addr), box.hidden, box.querySelector('h3').textContent,
					...[...box.querySelectorAll('tbody tr')].map((tr) => [...tr.cells].map((td) => td.textContent).join(' / '))];
				r.renderRoute(box, a.addr, {data: [[[null, null], [3]]]});
				return [...shown, box.hidden, r.addressFilter('traffic BY server.ip')].join(' | '); })`,
			`server | records BY server.as_path, server.communities WHERE server.ip = 198.51.100.7 TOP 20 | false | Route of 198.51.100.7 | AS64500 › AS64510 / 65000:1004200000000:1:2 / 12 | (the router's own AS) / 65000:1 / 2 | true | `},
	}
	for _, tt := range rewrites {
		t.Run("rewrite "+tt.name, func(t *testing.T) {
			p := &page{t: t, ctx: tab}
			js := `Promise.all([import('/query.js'), import('/explore.js')]).then(([q, x]) => {
				const P = (e, b) => q.rewrite(e, q.periodEdits(e, b)).text;
				const F = (e, f, i) => q.rewrite(e, q.filterEdits(e, f, i)).text;
				return ` + tt.js + `; })`
			if got := p.eval(js); got != tt.want {
				t.Errorf("%s\n got %s\nwant %s", tt.js, got, tt.want)
			}
		})
	}
	// Wherever an answer is cut, the widget says how much: by the page (500 rows, 12 bars) or by
	// the query's TOP (meta.groups).
	rows := func(n int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `[["10.0.0.%d"],[%d]]`, i, 1000-i)
		}
		return "[" + b.String() + "]"
	}
	cuts := []struct {
		name, kind, data, meta, want string
	}{
		{"table cut by TOP", "table", rows(3), `{"groups":214861}`, "Showing 3 of 214,861 rows."},
		{"table cut by the page", "table", rows(501), `{}`, "Showing 500 of 501 rows."},
		{"table whole", "table", rows(3), `{}`, ""},
		{"bars cut by the page", "bar", rows(20), `{}`, "Showing 12 of 20 bars."},
		{"bars cut by TOP", "bar", rows(5), `{"groups":40}`, "Showing 5 of 40 bars."},
		{"pie cut by TOP", "pie", rows(5), `{"groups":40}`, "Showing 5 of 40 groups: shares are of these."},
	}
	for _, tt := range cuts {
		t.Run("cut "+tt.name, func(t *testing.T) {
			p := &page{t: t, ctx: tab}
			js := fmt.Sprintf(`import('/charts.js').then(m => { const el = document.createElement('div');
				m.render(el, %q, [{data: %s, meta: %s}], [{keys: ['client.ip'], values: [{name: 'traffic', unit: 'bytes'}]}]);
				return [...el.querySelectorAll('.cut-note')].map(e => e.textContent).join(' | '); })`, tt.kind, tt.data, tt.meta)
			if got := p.eval(js); got != tt.want {
				t.Errorf("the %s's cut note reads %q, want %q", tt.kind, got, tt.want)
			}
		})
	}
	// A response time without samples in a bucket is a gap; a volume's missing bucket is zero.
	for _, tt := range []struct{ name, unit, want string }{{"srt", "seconds", "2"}, {"traffic", "bytes", "1"}} {
		t.Run("gaps "+tt.name, func(t *testing.T) {
			p := &page{t: t, ctx: tab}
			js := fmt.Sprintf(`import('/charts.js').then(m => { const el = document.createElement('div');
				m.render(el, 'timeseries', [{data: [[[60],[0.04]],[[120],[0.05]],[[240],[0.06]]], meta: {}}],
					[{keys: ['time(60)'], values: [{name: %q, unit: %q}]}], {win: {since: 0, until: 240}});
				return String(el.querySelectorAll('path.series').length); })`, tt.name, tt.unit)
			if got := p.eval(js); got != tt.want {
				t.Errorf("a %s series with a missing bucket is drawn as %s lines, want %s", tt.unit, got, tt.want)
			}
		})
	}
	format := []struct {
		value, unit, want string
	}{
		{"220000", "bytes", "220 kB"},
		{"999", "bytes", "999 B"},
		{"1234567", "", "1.23M"},
		{"45600", "packets", "45.6k"},
		{"0.25", "", "0.25"},
		{"0", "bytes", "0 B"},
		{"null", "", "–"},
		{"-1500", "", "-1.50k"},
		{"0.0402", "seconds", "40.2 ms"},
		{"0.00035", "seconds", "0.35 ms"},
		{"0.01", "seconds", "10 ms"},
		{"12.5", "seconds", "12.5 s"},
		{"null", "seconds", "–"},
	}
	for _, tt := range format {
		t.Run("format "+tt.value+" "+tt.unit, func(t *testing.T) {
			p := &page{t: t, ctx: tab}
			js := fmt.Sprintf(`import('/charts.js').then(m => m.formatValue(%s, %q))`, tt.value, tt.unit)
			if got := p.eval(js); got != tt.want {
				t.Errorf("formatValue(%s, %q) = %q, want %q", tt.value, tt.unit, got, tt.want)
			}
		})
	}
}
