package collect

import (
	"bytes"
	"strings"

	"github.com/fnapi/fnapi/examples/dataservice/capture"
	"github.com/fnapi/fnapi/examples/dataservice/netctx"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/netsampler/goflow2/v2/decoders/netflow"
)

// Vendors' fields of the application layers (the package doc's table says how each maps):
// nProbe's HTTP and DNS plugins (ntop's list of information elements, "nprobe -H") and Cisco
// AVC's HTTP host and URI statistics (Cisco's AVC Field Definition Guide for Third-Party
// Customers quotes them as 45003 and 42125, the enterprise bit set on 12235 and 9357).
const (
	ntopHTTPURL     = 180 // HTTP_URL: the request's URL
	ntopHTTPRetCode = 181 // HTTP_RET_CODE: the response's status (e.g. 200, 304)
	ntopHTTPHost    = 187 // HTTP_HOST: the Host header
	ntopDNSQuery    = 205 // DNS_QUERY: the name asked
	ntopDNSType     = 207 // DNS_QUERY_TYPE: 1=A, 2=NS...
	ntopDNSRetCode  = 208 // DNS_RET_CODE: 0=no error
	ntopHTTPMethod  = 360 // HTTP_METHOD

	ciscoHTTPURIStats = 9357  // application http uri statistics: URI, NUL, 2-byte count, repeated
	ciscoHTTPHost     = 12235 // application http host
)

// maxURIs bounds the paths of Cisco's URI statistics read from one flow, each a record.
const maxURIs = 16

// The slots of appFields, one per field read.
const (
	appURL = iota
	appRetCode
	appHost
	appMethod
	appQuery
	appQType
	appRCode
	appURIs
	appSlots
)

// appFields holds, per slot, the index+1 in a data record's values of the field of that slot
// (0: absent), so that a record without them costs 16 bytes of zeroes.
type appFields [appSlots]uint16

// appSlot returns the slot of a vendor's layer field, and false for any other field.
func appSlot(v *netflow.DataField) (int, bool) {
	pen, typ := vendorElement(v)
	switch {
	case pen == penNtop && typ == ntopHTTPURL:
		return appURL, true
	case pen == penNtop && typ == ntopHTTPRetCode:
		return appRetCode, true
	case pen == penNtop && typ == ntopHTTPHost, pen == penCisco && typ == ciscoHTTPHost:
		return appHost, true
	case pen == penNtop && typ == ntopHTTPMethod:
		return appMethod, true
	case pen == penNtop && typ == ntopDNSQuery:
		return appQuery, true
	case pen == penNtop && typ == ntopDNSType:
		return appQType, true
	case pen == penNtop && typ == ntopDNSRetCode:
		return appRCode, true
	case pen == penCisco && typ == ciscoHTTPURIStats:
		return appURIs, true
	}
	return 0, false
}

// App is what an exporter decoded of a flow's application layer, cleaned and bounded: the
// requests of its HTTP (one per URI Cisco names, nProbe's last request) or its DNS query.
type App struct {
	// HTTP holds the records.HTTP of LayerHTTP records, DNS the query of a LayerDNS one.
	HTTP []records.HTTP
	DNS  *records.DNS
}

// app returns the App the fields make of values, nil when they make none, and how many
// values it could not use (a status outside 100..999, a type or code of more than 16 or 12
// bits, a number of a length no unsigned integer has).
func (a *appFields) app(values []netflow.DataField) (out *App, ignored int) {
	get := func(slot int) ([]byte, bool) {
		if i := a[slot]; i > 0 {
			val, _ := values[i-1].Value.([]byte)
			return val, true
		}
		return nil, false
	}
	// str is a string field up to its first NUL: nProbe pads v9's fixed lengths with them.
	str := func(slot int) ([]byte, bool) {
		val, ok := get(slot)
		if i := bytes.IndexByte(val, 0); i >= 0 {
			val = val[:i]
		}
		return val, ok
	}
	num := func(slot int, max uint64) (uint64, bool) {
		val, ok := get(slot)
		if !ok {
			return 0, false
		}
		if n := uintOf(val); len(val) > 0 && len(val) <= 8 && n <= max {
			return n, true
		}
		ignored++
		return 0, false
	}
	if q, ok := str(appQuery); ok {
		qtype, _ := num(appQType, 0xFFFF)
		rcode, okCode := num(appRCode, 4095)
		if name := qname(q); name != "" && okCode { // no name, or no code: no query to tell of
			out = &App{DNS: &records.DNS{QName: name, QType: uint16(qtype), RCode: uint16(rcode)}}
		}
	}
	var h records.HTTP
	if m, ok := str(appMethod); ok {
		h.Method = netctx.Clean(string(m[:min(len(m), 4*records.MaxMethodLen)]), records.MaxMethodLen)
	}
	if s, ok := num(appRetCode, 999); ok && s >= 100 {
		h.Status = uint16(s)
	} else if ok && s != 0 { // 0: no response
		ignored++
	}
	if v, ok := str(appHost); ok {
		h.Host = host(v)
	}
	if u, ok := str(appURL); ok {
		h.Path = capture.FoldPath(urlPath(u))
	}
	var paths [][]byte
	if v, ok := get(appURIs); ok {
		paths = uriStats(v)
	}
	if h == (records.HTTP{}) && len(paths) == 0 {
		return out, ignored
	}
	if out == nil {
		out = &App{}
	}
	if len(paths) == 0 {
		out.HTTP = []records.HTTP{h}
		return out, ignored
	}
	for _, p := range paths {
		r := h
		r.Path = capture.FoldPath(urlPath(p))
		out.HTTP = append(out.HTTP, r)
	}
	return out, ignored
}

// boundHTTP bounds the method, host and path of ex's HTTP record r as the probe bounds its
// source's (capture.HTTPStrings): Limits.MaxHTTPHosts and MaxHTTPPaths an hour, and all
// exporters' together Limits.MaxHTTPBytes, counted in ex.leftOut past them. Its records are valid: their hours are near the time they arrived.
func (c *Collector) boundHTTP(ex *exporter, r *records.Record) {
	if ex.http == nil {
		ex.http = capture.NewHTTPStrings(c.limits.MaxHTTPHosts, c.limits.MaxHTTPPaths, c.httpBytes)
	}
	if n := ex.http.Bound(r.Time/3600, &r.HTTP); n > 0 {
		ex.leftOut.Add(uint64(n))
	}
}

// boundDNS bounds the query name of ex's DNS record r as the probe bounds its source's
// (capture.Names): Limits.MaxDNSNames an hour, in the budget of Limits.MaxHTTPBytes, counted
// in ex.leftOut past them.
func (c *Collector) boundDNS(ex *exporter, r *records.Record) {
	if ex.dns == nil {
		ex.dns = capture.NewNames(c.limits.MaxDNSNames, c.httpBytes)
	}
	var ok bool
	if r.DNS.QName, ok = ex.dns.Bound(r.Time/3600, r.DNS.QName); !ok {
		ex.leftOut.Add(1)
	}
}

// urlPath returns the path of URL u: without a scheme and authority ("http://host"), its query
// string and fragment.
func urlPath(u []byte) []byte {
	if i := bytes.Index(u, []byte("://")); i >= 0 && bytes.IndexByte(u[:i], '/') < 0 {
		u = u[i+3:]
		if j := bytes.IndexByte(u, '/'); j >= 0 {
			u = u[j:]
		} else {
			u = nil
		}
	}
	if i := bytes.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	return u
}

// uriStats returns the URIs of Cisco's URI statistics, each followed by a NUL and a 2-byte
// count (not kept: a URI makes one record), at most maxURIs; a URI cut short still counts.
func uriStats(v []byte) [][]byte {
	var out [][]byte
	for len(v) > 0 && len(out) < maxURIs {
		i := bytes.IndexByte(v, 0)
		if i < 0 {
			i = len(v)
		}
		if i > 0 {
			out = append(out, v[:i])
		}
		v = v[min(len(v), i+3):]
	}
	return out
}

// host returns an exporter's Host as records.HTTP.Host keeps it: cleaned (netctx.Clean), without
// its port or an IPv6 address's brackets, lower case, at most records.MaxHostLen bytes.
func host(v []byte) string {
	h := netctx.Clean(string(v[:min(len(v), 4*records.MaxHostLen)]), records.MaxHostLen)
	for {
		prev := h
		if i := strings.LastIndexByte(h, ':'); i >= 0 && !strings.HasSuffix(h, "]") && (h[0] == '[' || strings.Count(h, ":") == 1) {
			h = h[:i]
		}
		if len(h) > 1 && h[0] == '[' && h[len(h)-1] == ']' {
			h = h[1 : len(h)-1]
		}
		if h == prev {
			break
		}
	}
	return lower(h, records.MaxHostLen)
}

// qname returns an exporter's DNS name as records.DNS.QName keeps it: cleaned, lower case,
// without its final dots, at most records.MaxQNameLen bytes.
func qname(v []byte) string {
	return strings.TrimRight(lower(netctx.Clean(string(v[:min(len(v), 4*records.MaxQNameLen)]), records.MaxQNameLen), records.MaxQNameLen), ".")
}

// lower returns clean s in lower case, cut again to max bytes (a few letters grow).
func lower(s string, max int) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || 'A' <= c && c <= 'Z' {
			return netctx.Clean(strings.ToLower(s), max)
		}
	}
	return s
}
