package pvql

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/version"
)

// The reference's view of each key, metric and layer, by name: a descriptor added without
// one here fails TestDescriptors.
var (
	refKeys = map[string]refKey{"client.ip": refClientIP, "server.ip": refServerIP,
		"client.port": refClientPort, "server.port": refServerPort, "protocol": refProtocol,
		"application": refApp, "exporter": refExporter, "server.name": refServerName,
		"client.zone": refClientZone, "server.zone": refServerZone, "client.asn": refClientASN,
		"server.asn": refServerASN, "client.country": refClientCountry, "server.country": refServerCountry,
		"in_if": refInIf, "out_if": refOutIf, "exporter.name": refExporterName,
		"http.method": refString(func(r *rec) string { return r.http.Method }), "http.status": refNumber(func(r *rec) int64 { return int64(r.http.Status) }),
		"http.host": refString(func(r *rec) string { return r.http.Host }), "http.path": refString(func(r *rec) string { return r.http.Path }),
		"dns.qname": refString(func(r *rec) string { return r.dns.QName }), "dns.qtype": refCode(func(r *rec) int64 { return int64(r.dns.QType) }, refQType),
		"dns.rcode": refCode(func(r *rec) int64 { return int64(r.dns.RCode) }, refRCode), "tls.version": refCode(func(r *rec) int64 { return int64(r.tls.Version) }, refTLSVersion),
		"tls.cipher": refCode(func(r *rec) int64 { return int64(r.tls.Cipher) }, refCipher), "tls.not_after": refNumber(func(r *rec) int64 { return r.tls.NotAfter }),
		"tls.issuer":     refString(func(r *rec) string { return r.tls.Issuer }),
		"client.as_path": refClientPath, "server.as_path": refServerPath,
		"client.communities": refClientComms, "server.communities": refServerComms}
	refMetrics = map[string]func(refSums) float64{
		"traffic":             vTraffic,
		"client.traffic":      vCTraffic,
		"server.traffic":      func(s refSums) float64 { return float64(s.sb) },
		"packets":             vPackets,
		"client.packets":      func(s refSums) float64 { return float64(s.cp) },
		"server.packets":      func(s refSums) float64 { return float64(s.sp) },
		"records":             vRecords,
		"rtt":                 func(s refSums) float64 { return refAvg(s.cRTT, s.cRTTN, s.sRTT, s.sRTTN) },
		"client.rtt":          func(s refSums) float64 { return refAvg(s.cRTT, s.cRTTN) },
		"server.rtt":          vServerRTT,
		"ct":                  func(s refSums) float64 { return refAvg(s.ct, s.ctN) },
		"srt":                 vSRT,
		"dtt":                 func(s refSums) float64 { return refAvg(s.dtt, s.dttN) },
		"eurt":                func(s refSums) float64 { return refAvg(s.cRTT, s.cRTTN, s.sRTT, s.sRTTN, s.srt, s.srtN, s.dtt, s.dttN) },
		"retrans":             vRetrans,
		"client.retrans":      func(s refSums) float64 { return float64(s.cRetrans) },
		"server.retrans":      func(s refSums) float64 { return float64(s.sRetrans) },
		"resets":              func(s refSums) float64 { return float64(s.resets) },
		"client.zero_windows": func(s refSums) float64 { return float64(s.cZero) },
		"server.zero_windows": func(s refSums) float64 { return float64(s.sZero) },
	}
	refLayers = map[string]func(r *rec) bool{
		"transport": func(*rec) bool { return true },
		"tcp":       func(r *rec) bool { return r.proto == records.TCP },
		"udp":       func(r *rec) bool { return r.proto == records.UDP },
		"icmp":      func(r *rec) bool { return r.proto == records.ICMP },
		"http":      func(*rec) bool { return true },
		"dns":       func(*rec) bool { return true },
		"tls":       func(*rec) bool { return true },
	}
)

// TestDescriptors loops over every key, metric and layer descriptor: each is complete, fits a
// group key, and answers as the reference does in BY, in WHERE (with a value of its own
// results) and in FROM.
func TestDescriptors(t *testing.T) {
	t.Parallel()
	recs := testRecords()
	engine := New(openDB(t, recs))
	checkDescriptors(t, engine, recs)
}

func checkDescriptors(t *testing.T, engine *Engine, recs []rec) {
	check := func(expr string, want refQuery) {
		t.Helper()
		want.since, want.until = testNow-3600, testNow
		got, err := engine.Query(context.Background(), expr, time.Unix(testNow, 0), time.Hour)
		if err != nil {
			t.Fatalf("%q: %v", expr, err)
		}
		if d := diffResult(got[0], want.answer(recs)); d != "" {
			t.Errorf("%q: %s", expr, d)
		}
	}
	words, strs := map[records.Layer]int{}, map[records.Layer]int{} // the slots of the keys of each layer
	for i, k := range keyKinds {
		if k.name == "" || k.desc == "" || k.typ == nil || k.typ.render == nil {
			t.Fatalf("key %d is incomplete", i)
		}
		if keyKind(i) == kTime {
			continue
		}
		want := map[records.Kind]int{records.KindAddr: 2, records.KindString: 0, records.KindUint32s: 0, records.KindStrings: 0}
		if w, ok := want[k.column.Kind()]; ok && w != k.typ.words || !ok && k.typ.words != 1 {
			t.Errorf("key %s: type %s takes %d words for a column of kind %d", k.name, k.typ.name, k.typ.words, k.column.Kind())
		}
		if k.typ.literal == nil {
			t.Errorf("key %s has no literal parser", k.name)
		}
		l := keyLayers[keyKind(i)]
		from := ""
		if l != records.LayerTransport {
			from = " FROM " + l.String()
		}
		words[l] += k.typ.words
		if k.typ.words == 0 {
			strs[l]++
		}
		strs[l] += len(k.extra)
		ref, ok := refKeys[k.name]
		if !ok {
			t.Errorf("key %s has no reference in refKeys", k.name)
			continue
		}
		check("records, traffic BY "+k.name+from, refQuery{keys: []refKey{ref}, values: vals(vRecords, vTraffic), layer: l})
		// A value of the key's own results, written back as a literal.
		res, err := engine.Query(context.Background(), "records BY "+k.name+from, time.Unix(testNow, 0), time.Hour)
		if err != nil || len(res[0].Data) == 0 {
			t.Fatalf("records BY %s: %v, %d rows", k.name, err, len(res))
		}
		v := res[0].Data[0].Keys[0]
		lit, _ := json.Marshal(v)
		where := func(r *rec) bool { return refRender(ref, ref.get(r)) == v }
		if m, ok := v.(map[string]any); ok { // an AS or an interface: WHERE takes its number
			n := m["asn"]
			if n == nil {
				n = m["index"]
			}
			lit, _ = json.Marshal(n)
			where = func(r *rec) bool { return ref.get(r).(refNamed).n == n }
		} else if k.column.List() && v != nil { // a route's list: WHERE takes its last value
			var last any
			switch l := v.(type) {
			case []int64:
				last = l[len(l)-1]
			case []string:
				last = l[len(l)-1]
			}
			lit, _ = json.Marshal(last)
			want := strings.Trim(string(lit), `"`)
			where = func(r *rec) bool { return refHas(ref.get(r).(string), want) }
		} else if v == nil && k.column.List() { // null: the empty list
			where = func(r *rec) bool { return ref.get(r) == "" }
		} else if _, named := ref.get(&recs[0]).(refNamed); named { // null: number 0
			where = func(r *rec) bool { return ref.get(r).(refNamed).n == 0 }
		}
		check(fmt.Sprintf("records WHERE %s = %s%s", k.name, lit, from), refQuery{values: vals(vRecords), where: where, layer: l})
		check(fmt.Sprintf("records BY %s WHERE NOT %s IN (%s)%s", k.name, k.name, lit, from),
			refQuery{keys: []refKey{ref}, values: vals(vRecords), where: func(r *rec) bool { return !where(r) }, layer: l})
	}
	w, st := 0, 0
	for l := records.LayerHTTP; l < records.NumLayers; l++ {
		w, st = max(w, words[l]), max(st, strs[l])
	}
	if words[0]+w > maxWords || strs[0]+st > maxStrings {
		t.Errorf("the keys of a layer take %d words and %d string slots of a gkey; it has %d and %d", words[0]+w, strs[0]+st, maxWords, maxStrings)
	}
	for _, m := range metrics {
		ref, ok := refMetrics[m.name]
		if m.desc == "" || len(m.sums) == 0 || !ok {
			t.Errorf("metric %s is incomplete or has no reference", m.name)
			continue
		}
		check(m.name+" BY protocol", refQuery{keys: []refKey{refProtocol}, values: vals(ref)})
	}
	orNull := func(v uint64) float64 {
		if v == 0 {
			return math.NaN()
		}
		return float64(v)
	}
	vMinExp, vMaxExp := func(s refSums) float64 { return orNull(s.minExp) }, func(s refSums) float64 { return orNull(s.maxExp) }
	tls := func(r *rec) bool { return r.layer == records.LayerTLS }
	for _, e := range extremes {
		if e.desc == "" {
			t.Errorf("%s has no description", e.name)
		}
	}
	check("min(tls.not_after), max(tls.not_after), records BY server.name FROM tls",
		refQuery{keys: []refKey{refServerName}, values: vals(vMinExp, vMaxExp, vRecords), where: tls, layer: records.LayerTLS})
	check("0 - min(tls.not_after) AS \"first\", records BY tls.version, client.ip FROM tls HAVING min(tls.not_after) < 1900100000 TOP 3",
		refQuery{keys: []refKey{refKeys["tls.version"], refClientIP}, values: vals(func(s refSums) float64 { return -orNull(s.minExp) }, vRecords),
			where: tls, layer: records.LayerTLS, top: 3,
			having: func(s refSums, _ []float64) bool { return s.minExp != 0 && s.minExp < 1_900_100_000 }})
	for _, l := range layers {
		if l.name == "queue" {
			continue // not the records': TestQueueLayer
		}
		ref, ok := refLayers[l.name]
		if l.desc == "" || !ok {
			t.Errorf("layer %s is incomplete or has no reference", l.name)
			continue
		}
		check("records FROM "+l.name, refQuery{values: vals(vRecords), where: ref, layer: l.layer})
	}
}

// TestFieldsAt checks that each API version lists the names it knows and none of a later one.
func TestFieldsAt(t *testing.T) {
	t.Parallel()
	names := func(v string) map[string]bool {
		out := map[string]bool{}
		for _, f := range FieldsAt(version.MustParse(v)) {
			out[f.Name] = true
		}
		return out
	}
	for _, tt := range []struct {
		version string
		want    map[string]bool
	}{
		{"1.0", map[string]bool{"traffic": true, "client.ip": true, "exporter": false}},
		{"1.1", map[string]bool{"traffic": true, "exporter": false}},
		{"1.2", map[string]bool{"traffic": true, "exporter": true, "client.zone": false, "in_if": false}},
		{"1.3", map[string]bool{"client.zone": true, "server.asn": true, "in_if": true, "exporter.name": true}},
	} {
		got := names(tt.version)
		for name, want := range tt.want {
			if got[name] != want {
				t.Errorf("FieldsAt(%s) lists %s: %v, want %v", tt.version, name, got[name], want)
			}
		}
	}
	for _, f := range Fields() {
		if f.Since != "" && !names(f.Since)[f.Name] {
			t.Errorf("%s is not listed at its own version %s", f.Name, f.Since)
		}
	}
}
