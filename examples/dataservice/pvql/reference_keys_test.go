package pvql

import (
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// refKey is how the reference reads one BY key of a record and renders its value.
type refKey struct {
	time   int64 // N of time(N); 0 for the other keys
	get    func(r *rec) any
	render func(v any) any // nil: as is
}

var (
	refClientIP   = refKey{get: func(r *rec) any { return netip.AddrFrom16(r.cIP.As16()) }}
	refServerIP   = refKey{get: func(r *rec) any { return netip.AddrFrom16(r.sIP.As16()) }}
	refClientPort = refKey{get: func(r *rec) any { return int64(r.cPort) }}
	refServerPort = refKey{get: func(r *rec) any { return int64(r.sPort) }}
	refProtocol   = refKey{get: func(r *rec) any { return int64(r.proto) }, render: func(v any) any {
		if name, ok := map[int64]string{1: "icmp", 6: "tcp", 17: "udp", 47: "gre"}[v.(int64)]; ok {
			return name
		}
		return v
	}}
	refApp        = refKey{get: func(r *rec) any { return r.app }}
	refServerName = refKey{get: func(r *rec) any { return r.name }, render: func(v any) any {
		if v == "" {
			return nil
		}
		return v
	}}
	refExporter = refKey{get: func(r *rec) any { return netip.AddrFrom16(r.exporter.As16()) }, render: func(v any) any {
		if a := v.(netip.Addr); a != netip.IPv6Unspecified() {
			return a.Unmap().String()
		}
		return nil // no exporter
	}}
)

// refNamed is a number with the names shown with it (an AS, an interface).
type refNamed struct {
	n     int64
	names [2]string
}

func refNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func refZone(get func(r *rec) string) refKey {
	return refKey{get: func(r *rec) any { return get(r) }, render: func(v any) any {
		if v == "" {
			return "other"
		}
		return v
	}}
}

func refASN(get func(r *rec) (uint32, string)) refKey {
	return refKey{get: func(r *rec) any { n, name := get(r); return refNamed{n: int64(n), names: [2]string{name}} },
		render: func(v any) any {
			if v := v.(refNamed); v.n != 0 {
				return map[string]any{"asn": v.n, "name": refNull(v.names[0])}
			}
			return nil
		}}
}

func refIf(get func(r *rec) (uint32, string, string)) refKey {
	return refKey{get: func(r *rec) any { n, name, alias := get(r); return refNamed{int64(n), [2]string{name, alias}} },
		render: func(v any) any {
			if v := v.(refNamed); v.n != 0 {
				return map[string]any{"index": v.n, "name": refNull(v.names[0]), "alias": refNull(v.names[1])}
			}
			return nil
		}}
}

func refString(get func(r *rec) string) refKey {
	return refKey{get: func(r *rec) any { return get(r) }, render: func(v any) any { return refNull(v.(string)) }}
}

var (
	refClientZone    = refZone(func(r *rec) string { return r.cZone })
	refServerZone    = refZone(func(r *rec) string { return r.sZone })
	refClientASN     = refASN(func(r *rec) (uint32, string) { return r.cASN, r.cASName })
	refServerASN     = refASN(func(r *rec) (uint32, string) { return r.sASN, r.sASName })
	refClientCountry = refString(func(r *rec) string { return r.cCountry })
	refServerCountry = refString(func(r *rec) string { return r.sCountry })
	refInIf          = refIf(func(r *rec) (uint32, string, string) { return r.inIf, r.inName, r.inAlias })
	refOutIf         = refIf(func(r *rec) (uint32, string, string) { return r.outIf, r.outName, r.outAlias })
	refExporterName  = refString(func(r *rec) string { return r.expName })
)

// refPath and refComms read a route's list as its text (comparable, as a group holds it) and
// render it as a list, null when empty.
func refPath(get func(r *rec) []uint32) refKey {
	return refKey{get: func(r *rec) any {
		var fs []string
		for _, n := range get(r) {
			fs = append(fs, strconv.FormatUint(uint64(n), 10))
		}
		return strings.Join(fs, " ")
	}, render: func(v any) any {
		if v == "" {
			return nil
		}
		var out []int64
		for _, f := range strings.Fields(v.(string)) {
			n, _ := strconv.ParseInt(f, 10, 64)
			out = append(out, n)
		}
		return out
	}}
}

func refComms(get func(r *rec) []string) refKey {
	return refKey{get: func(r *rec) any { return strings.Join(get(r), " ") }, render: func(v any) any {
		if v == "" {
			return nil
		}
		return strings.Fields(v.(string))
	}}
}

var (
	refClientPath  = refPath(func(r *rec) []uint32 { return r.cPath })
	refServerPath  = refPath(func(r *rec) []uint32 { return r.sPath })
	refClientComms = refComms(func(r *rec) []string { return r.cComms })
	refServerComms = refComms(func(r *rec) []string { return r.sComms })
)

// refHas reports whether a route's list as its text holds v.
func refHas(text string, v string) bool { return slices.Contains(strings.Fields(text), v) }

// refInZone reports whether zone is name or nested under it.
func refInZone(zone, name string) bool { return zone == name || strings.HasPrefix(zone, name+"/") }

func refTime(n int64) refKey {
	return refKey{time: n, get: func(r *rec) any {
		t := r.time / n * n
		if t > r.time { // negative times: round down
			t -= n
		}
		return t + n
	}}
}

func refRender(k refKey, v any) any {
	if k.render != nil {
		return k.render(v)
	}
	if a, ok := v.(netip.Addr); ok {
		return a.Unmap().String()
	}
	return v
}

// The layers' keys: a number shown as null when 0, and codes shown by name.
func refNumber(get func(r *rec) int64) refKey {
	return refKey{get: func(r *rec) any { return get(r) }, render: func(v any) any {
		if v == int64(0) {
			return nil
		}
		return v
	}}
}

func refCode(get func(r *rec) int64, name func(n int64) any) refKey {
	return refKey{get: func(r *rec) any { return get(r) }, render: func(v any) any { return name(v.(int64)) }}
}

var (
	refQType      = func(n int64) any { return records.QTypeName(uint16(n)) }
	refRCode      = func(n int64) any { return records.RCodeName(uint16(n)) }
	refTLSVersion = func(n int64) any { return refNamedOr(records.TLSVersionName(uint16(n)), n) }
	refCipher     = func(n int64) any { return refNamedOr(records.CipherName(uint16(n)), n) }
)

// refNamedOr is name, or n (null when 0) when name is empty.
func refNamedOr(name string, n int64) any {
	switch {
	case name != "":
		return name
	case n == 0:
		return nil
	}
	return n
}
