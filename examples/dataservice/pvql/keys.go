package pvql

import (
	"net/netip"
	"strconv"
	"strings"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// keyKind indexes keyKinds.
type keyKind int

const (
	kTime keyKind = iota
	kClientIP
	kServerIP
	kClientPort
	kServerPort
	kProtocol
	kApplication
	kExporter
	kServerName
	kClientZone
	kServerZone
	kClientASN
	kServerASN
	kClientCountry
	kServerCountry
	kInIf
	kOutIf
	kExporterName
	// The layers' keys (layers.go).
	kHTTPMethod
	kHTTPStatus
	kHTTPHost
	kHTTPPath
	kDNSQName
	kDNSQType
	kDNSRCode
	kTLSVersion
	kTLSCipher
	kTLSNotAfter
	kTLSIssuer
	kClientASPath
	kServerASPath
	kClientCommunities
	kServerCommunities
)

// keyKinds describes every key of the language once: its name, the records column it reads,
// its type (how its literals parse and its values show) and its description. The parser, the
// compiler, grouping, ordering, rendering and list-fields all read this table; a new key is a
// row here (and a column of package records).
var keyKinds = []struct {
	name   string
	column records.Column
	typ    *keyType
	desc   string
	since  string // the API version the key appeared in; "" for 1.0
	// extra are the columns of names grouped with column and shown with its value (an
	// autonomous system's organisation, an interface's name and alias), each a string slot of
	// the gkey: a number named differently over time (history keeps what was known then) is
	// then two groups.
	extra []records.Column
}{
	kTime:        {"time", records.ColTime, timeType, "time(N): buckets of N seconds; the point T (a multiple of N, Unix seconds) covers [T-N, T). Not usable in WHERE.", "", nil},
	kClientIP:    {"client.ip", records.ColClientIP, ipType, "Address of the client (IPv4 or IPv6); WHERE accepts =, !=, <, <=, >, >=, IN (list) and IN CIDR.", "", nil},
	kServerIP:    {"server.ip", records.ColServerIP, ipType, "Address of the server (IPv4 or IPv6); WHERE accepts =, !=, <, <=, >, >=, IN (list) and IN CIDR.", "", nil},
	kClientPort:  {"client.port", records.ColClientPort, portType, "Port of the client (0-65535).", "", nil},
	kServerPort:  {"server.port", records.ColServerPort, portType, "Port of the server (0-65535).", "", nil},
	kProtocol:    {"protocol", records.ColProtocol, protocolType, "IP protocol: tcp, udp, icmp, ... or a number (0-255); results name the known ones.", "", nil},
	kApplication: {"application", records.ColApplication, stringType, "Application name (https, dns, ...; unknown when not recognised).", "", nil},
	kExporter:    {"exporter", records.ColExporter, exporterType, "Address of the router, switch or probe that exported the record (NetFlow, IPFIX, sFlow); null for records without one. WHERE accepts what client.ip does.", "1.2", nil},
	kServerName:  {"server.name", records.ColServerName, nameType, "Name the client asked for (TLS SNI, HTTP Host, or the DNS answer that gave the server's address), as a capture probe saw it; null when unknown. WHERE accepts = and IN (\"www.example.com\", compared lower-cased; null: records without a name).", "1.3", nil},
	kClientZone:  {"client.zone", records.ColClientZone, zoneType, zoneDesc("client"), "1.3", nil},
	kServerZone:  {"server.zone", records.ColServerZone, zoneType, zoneDesc("server"), "1.3", nil},
	kClientASN: {"client.asn", records.ColClientASN, asnType, asnDesc("client"), "1.3",
		[]records.Column{records.ColClientASName}},
	kServerASN: {"server.asn", records.ColServerASN, asnType, asnDesc("server"), "1.3",
		[]records.Column{records.ColServerASName}},
	kClientCountry: {"client.country", records.ColClientCountry, countryType, countryDesc("client"), "1.3", nil},
	kServerCountry: {"server.country", records.ColServerCountry, countryType, countryDesc("server"), "1.3", nil},
	kInIf: {"in_if", records.ColInIf, ifType, "Interface of the exporter through which the client's traffic entered: {\"index\", \"name\", \"alias\"} (SNMP ifIndex, ifName, ifAlias, names as known when the record arrived); null when unknown. WHERE accepts = and IN with indexes (null: unknown).", "1.3",
		[]records.Column{records.ColInIfName, records.ColInIfAlias}},
	kOutIf: {"out_if", records.ColOutIf, ifType, "Interface of the exporter through which the client's traffic left: {\"index\", \"name\", \"alias\"}; null when unknown. WHERE accepts = and IN with indexes (null: unknown).", "1.3",
		[]records.Column{records.ColOutIfName, records.ColOutIfAlias}},
	kExporterName: {"exporter.name", records.ColExporterName, exporterNameType, "Name of the exporter (its SNMP sysName, or the configuration's exporter_names), as known when the record arrived; null when unknown. WHERE accepts = and IN (null: records without a name).", "1.3", nil},
	// The layers' keys (layers.go: each of one layer).
	kHTTPMethod:        {"http.method", records.ColHTTPMethod, exporterNameType, "FROM http: the request's method as sent (\"GET\", \"POST\"). WHERE accepts = and IN.", "1.4", nil},
	kHTTPStatus:        {"http.status", records.ColHTTPStatus, httpStatusType, "FROM http: the response's status code (200, 404, ...); null for a request without a response (timed out, reset). WHERE accepts = and IN (null: no response).", "1.4", nil},
	kHTTPHost:          {"http.host", records.ColHTTPHost, nameType, "FROM http: the Host header without its port, lower case; null when absent. WHERE accepts = and IN.", "1.4", nil},
	kHTTPPath:          {"http.path", records.ColHTTPPath, exporterNameType, "FROM http: the request's target without its query string, numbers and ids folded by the probe (\"/api/users/{n}\"). WHERE accepts = and IN.", "1.4", nil},
	kDNSQName:          {"dns.qname", records.ColDNSQName, qnameType, "FROM dns: the name asked, lower case, without the final dot. WHERE accepts = and IN.", "1.4", nil},
	kDNSQType:          {"dns.qtype", records.ColDNSQType, qtypeType, "FROM dns: the query type (\"A\", \"AAAA\", \"MX\", ..., or the number as text). WHERE accepts = and IN with names or numbers.", "1.4", nil},
	kDNSRCode:          {"dns.rcode", records.ColDNSRCode, rcodeType, "FROM dns: the answer's response code (\"NOERROR\", \"NXDOMAIN\", \"SERVFAIL\", ..., or the number as text), \"timeout\" for a query without an answer. WHERE accepts = and IN.", "1.4", nil},
	kTLSVersion:        {"tls.version", records.ColTLSVersion, tlsVersionType, "FROM tls: the negotiated version, \"1.0\" to \"1.3\" (from the ServerHello and its supported_versions); null when the server's hello was not seen. WHERE accepts = and IN.", "1.4", nil},
	kTLSCipher:         {"tls.cipher", records.ColTLSCipher, cipherType, "FROM tls: the negotiated cipher suite's IANA name (\"TLS_AES_128_GCM_SHA256\"), its number for one without a name, null when unknown. WHERE accepts = and IN.", "1.4", nil},
	kTLSNotAfter:       {"tls.not_after", records.ColTLSNotAfter, expiryType, "FROM tls: the server certificate's expiry in Unix seconds, where it was in clear (TLS 1.2 and older); null when unknown. WHERE accepts = and IN, and < and >; min(tls.not_after) is the earliest of a group's.", "1.4", nil},
	kTLSIssuer:         {"tls.issuer", records.ColTLSIssuer, exporterNameType, "FROM tls: the server certificate's issuer (its distinguished name), where it was in clear; null when unknown. WHERE accepts = and IN.", "1.4", nil},
	kClientASPath:      {"client.as_path", records.ColClientASPath, asPathType, asPathDesc("client"), "1.4", nil},
	kServerASPath:      {"server.as_path", records.ColServerASPath, asPathType, asPathDesc("server"), "1.4", nil},
	kClientCommunities: {"client.communities", records.ColClientCommunities, communitiesType, communitiesDesc("client"), "1.4", nil},
	kServerCommunities: {"server.communities", records.ColServerCommunities, communitiesType, communitiesDesc("server"), "1.4", nil},
}

func asPathDesc(side string) string {
	return "AS path of the BGP route covering the " + side + "'s address in the table of the record's exporter (-bgp), as it was when the record arrived: a list of AS numbers, the router's neighbour first and the origin last ([64500, 15169]); null without a route (or a path: a route of the router's own AS). Grouping groups by the whole path. WHERE accepts =, != and IN with AS numbers: = holds when the AS is in the path (null: records without a path)."
}

func communitiesDesc(side string) string {
	return "Communities of the BGP route covering the " + side + "'s address in the table of the record's exporter (-bgp), as they were when the record arrived: a list of \"A:B\" strings, large communities as \"A:B:C\"; null without any. Grouping groups by the whole list. WHERE accepts =, != and IN with communities: = holds when the route has the community (null: records without communities)."
}

func zoneDesc(side string) string {
	return "Zone of the " + side + "'s address (the operator's named networks, nested by \"/\"; the most specific network wins), as it was when the record arrived; \"other\" outside every zone. WHERE accepts = and IN; a name ending in \"/\" (\"Customers/\") is the zone and every zone nested under it."
}

func asnDesc(side string) string {
	return "Autonomous system of the " + side + "'s address: {\"asn\": 15169, \"name\": \"GOOGLE\"} (the GeoIP ASN file, as it was when the record arrived); null for private and unknown addresses. WHERE accepts = and IN with AS numbers (null: unknown)."
}

func countryDesc(side string) string {
	return "Country of the " + side + "'s address, ISO 3166 alpha-2 (\"FR\"; the GeoIP country file, as it was when the record arrived); null for private and unknown addresses. WHERE accepts = and IN (null: unknown)."
}

// keyType is what keys of one type share: how a WHERE literal of theirs parses, how their
// values are kept in a group key, and how they show in results.
type keyType struct {
	// name is the Field type ("ip", "port", ...).
	name string
	// words is how many 64-bit words of a gkey a value takes; 0 means the string slot (a
	// time takes the gkey's time field instead).
	words int
	// literal parses one WHERE operand from t; prefix allows a CIDR. It is nil for time.
	literal func(p *parser, t token, prefix bool) (literal, error)
	// render returns a value as a Row shows it, with the key's extra names.
	render func(v records.Value, extra []string) any
}

var (
	timeType = &keyType{name: "time", words: 1,
		render: func(v records.Value, _ []string) any { return int64(v.Lo) }}
	ipType = &keyType{name: "ip", words: 2, literal: ipLiteral,
		render: func(v records.Value, _ []string) any { return records.AddrFromHalves(v.Hi, v.Lo).String() }}
	portType = &keyType{name: "port", words: 1, literal: numberLiteral("port", 65535),
		render: func(v records.Value, _ []string) any { return int64(v.Lo) }}
	// exporterType is ipType but for records without an exporter (halves 0, 0), shown as null.
	exporterType = &keyType{name: "ip", words: 2, literal: ipLiteral,
		render: func(v records.Value, _ []string) any {
			if v.Hi == 0 && v.Lo == 0 {
				return nil
			}
			return records.AddrFromHalves(v.Hi, v.Lo).String()
		}}
	protocolType = &keyType{name: "protocol", words: 1, literal: protocolLiteral,
		render: func(v records.Value, _ []string) any { return protocolKey(uint8(v.Lo)) }}
	stringType = &keyType{name: "string", words: 0, literal: stringLiteral,
		render: func(v records.Value, _ []string) any { return v.Str }}
	// nameType is a server name: a string, lower-cased in literals as the records keep it, and
	// null for records without one.
	nameType = &keyType{name: "string", words: 0, literal: nameLiteral,
		render: func(v records.Value, _ []string) any {
			if v.Str == "" {
				return nil
			}
			return v.Str
		}}
	// zoneType is a zone: a string, "" (shown "other") outside every zone.
	zoneType = &keyType{name: "zone", words: 0, literal: zoneLiteral,
		render: func(v records.Value, _ []string) any {
			if v.Str == "" {
				return other
			}
			return v.Str
		}}
	asnType = &keyType{name: "asn", words: 1, literal: idLiteral("an AS number"),
		render: func(v records.Value, extra []string) any {
			if v.Lo == 0 {
				return nil
			}
			return map[string]any{"asn": int64(v.Lo), "name": nullString(extra[0])}
		}}
	countryType = &keyType{name: "country", words: 0, literal: countryLiteral,
		render: func(v records.Value, _ []string) any { return nullString(v.Str) }}
	ifType = &keyType{name: "interface", words: 1, literal: idLiteral("an interface index"),
		render: func(v records.Value, extra []string) any {
			if v.Lo == 0 {
				return nil
			}
			return map[string]any{"index": int64(v.Lo), "name": nullString(extra[0]), "alias": nullString(extra[1])}
		}}
	// asPathType is a route's AS path, kept as its text (records.Column.ListText); a literal
	// is one AS number, which = finds in the path.
	asPathType = &keyType{name: "as_path", words: 0, literal: idLiteral("an AS number"),
		render: func(v records.Value, _ []string) any {
			if v.Str == "" {
				return nil
			}
			var out []int64
			for f := range strings.SplitSeq(v.Str, records.ListSep) {
				n, _ := strconv.ParseInt(f, 10, 64)
				out = append(out, n)
			}
			return out
		}}
	// communitiesType is a route's communities, kept as their text; a literal is one
	// community, which = finds among them.
	communitiesType = &keyType{name: "communities", words: 0, literal: communityLiteral,
		render: func(v records.Value, _ []string) any {
			if v.Str == "" {
				return nil
			}
			return strings.Split(v.Str, records.ListSep)
		}}
	// exporterNameType is a name as given (case kept), null when unknown.
	exporterNameType = &keyType{name: "string", words: 0, literal: exactLiteral,
		render: func(v records.Value, _ []string) any { return nullString(v.Str) }}
)

// other is the zone of the records outside every zone (netctx.Other), which the records keep
// as "".
const other = "other"

// nullString is s, or nil (null) when empty.
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// zoneLiteral parses a zone: "other" is the records outside every zone; a name ending in "/"
// ("Customers/") the zone Customers and every zone nested under it (literal.nested).
func zoneLiteral(p *parser, t token, _ bool) (literal, error) {
	if t.kind != tokString && t.kind != tokIdent {
		return literal{}, p.errorAt(t, "", "a zone name (\"HQ\", \"Customers/\" for it and the zones under it, or other)")
	}
	name, nested := strings.CutSuffix(t.text, "/")
	if nested && (name == "" || strings.HasSuffix(name, "/")) {
		return literal{}, p.errorAt(t, "a zone prefix is a zone's name followed by one \"/\"", "a zone name")
	}
	if name == other {
		if nested {
			return literal{}, p.errorAt(t, "no zone is nested under other", "a zone name")
		}
		name = ""
	}
	v := records.Value{Str: name}
	return literal{from: v, to: v, nested: nested}, nil
}

// idLiteral parses a number 0..2^32-1 (expected names it), or null for 0, unknown.
func idLiteral(expected string) func(p *parser, t token, prefix bool) (literal, error) {
	expected += " (0-4294967295) or null"
	return func(p *parser, t token, _ bool) (literal, error) {
		if t.kind == tokIdent && strings.EqualFold(t.text, "null") {
			return numberLit(0), nil
		}
		n, err := p.integer(t, 0, expected)
		if err == nil && n > 1<<32-1 {
			err = p.errorAt(t, "out of range", expected)
		}
		return numberLit(n), err
	}
}

// countryLiteral parses an ISO 3166 alpha-2 code (any case), or null for unknown countries.
func countryLiteral(p *parser, t token, _ bool) (literal, error) {
	const expected = "a country code (ISO 3166 alpha-2: \"FR\") or null"
	if t.kind != tokString && t.kind != tokIdent {
		return literal{}, p.errorAt(t, "", expected)
	}
	code := strings.ToUpper(t.text)
	switch {
	case t.kind == tokIdent && code == "NULL":
		code = ""
	case len(code) != 2 || code[0] < 'A' || code[0] > 'Z' || code[1] < 'A' || code[1] > 'Z':
		return literal{}, p.errorAt(t, "not a country code "+strconv.Quote(t.text), expected)
	}
	v := records.Value{Str: code}
	return literal{from: v, to: v}, nil
}

// communityLiteral parses a BGP community, "A:B" (each 0-65535) or a large one "A:B:C"
// (each 0-4294967295), written as the records keep it (decimal, no leading zero), or null for
// records without communities.
func communityLiteral(p *parser, t token, _ bool) (literal, error) {
	const expected = "a community (\"65000:100\", or \"4200000000:1:2\" for a large one) or null"
	if t.kind == tokIdent && strings.EqualFold(t.text, "null") {
		return literal{}, nil
	}
	if t.kind != tokString {
		return literal{}, p.errorAt(t, "", expected)
	}
	parts := strings.Split(t.text, ":")
	max := uint64(1<<32 - 1)
	if len(parts) == 2 {
		max = 1<<16 - 1
	}
	if len(parts) < 2 || len(parts) > 3 {
		return literal{}, p.errorAt(t, "not a community "+strconv.Quote(t.text), expected)
	}
	for i, f := range parts {
		n, err := strconv.ParseUint(f, 10, 32)
		if err != nil || n > max || f[0] == '+' {
			return literal{}, p.errorAt(t, "not a community "+strconv.Quote(t.text), expected)
		}
		parts[i] = strconv.FormatUint(n, 10)
	}
	v := records.Value{Str: strings.Join(parts, ":")}
	return literal{from: v, to: v}, nil
}

// exactLiteral parses a name compared as written, or null for records without one.
func exactLiteral(p *parser, t token, _ bool) (literal, error) {
	if t.kind != tokString && t.kind != tokIdent {
		return literal{}, p.errorAt(t, "", "a name (\"edge1\") or null")
	}
	v := records.Value{Str: t.text}
	if t.kind == tokIdent && strings.EqualFold(t.text, "null") {
		v.Str = ""
	}
	return literal{from: v, to: v}, nil
}

// maxWords is the size of a gkey's word array: enough for every key of one layer at once (a
// statement reads one), with room for a few more (TestDescriptors checks).
const maxWords = 16

func ipLiteral(p *parser, t token, prefix bool) (literal, error) {
	if t.kind == tokPrefix && prefix {
		return prefixLiteral(t.text), nil
	}
	if t.kind == tokAddr || t.kind == tokString {
		if a, err := netip.ParseAddr(t.text); err == nil {
			x := addrOf(a)
			return literal{from: x, to: x}, nil
		}
	}
	if prefix {
		return literal{}, p.errorAt(t, "", "an IP address or a CIDR")
	}
	return literal{}, p.errorAt(t, "", "an IP address (IN takes a CIDR)")
}

// numberLiteral parses an integer 0..max, named what ("port").
func numberLiteral(what string, max int64) func(p *parser, t token, prefix bool) (literal, error) {
	expected := "a " + what + " number (0-" + strconv.FormatInt(max, 10) + ")"
	return func(p *parser, t token, _ bool) (literal, error) {
		n, err := p.integer(t, 0, expected)
		if err == nil && n > max {
			err = p.errorAt(t, what+" out of range", expected)
		}
		return numberLit(n), err
	}
}

func protocolLiteral(p *parser, t token, _ bool) (literal, error) {
	const expected = "a protocol (tcp, udp, icmp, ... or a number 0-255)"
	if t.kind == tokIdent || t.kind == tokString {
		if n, err := records.ParseProtocol(t.text); err == nil {
			return numberLit(int64(n)), nil
		}
		return literal{}, p.errorAt(t, "unknown protocol "+strconv.Quote(t.text), expected)
	}
	n, err := p.integer(t, 0, expected)
	if err == nil && n > 255 {
		err = p.errorAt(t, "protocol out of range", expected)
	}
	return numberLit(n), err
}

func stringLiteral(p *parser, t token, _ bool) (literal, error) {
	if t.kind != tokString && t.kind != tokIdent {
		return literal{}, p.errorAt(t, "", "an application name (\"https\")")
	}
	v := records.Value{Str: t.text}
	return literal{from: v, to: v}, nil
}

func nameLiteral(p *parser, t token, _ bool) (literal, error) {
	if t.kind != tokString && t.kind != tokIdent {
		return literal{}, p.errorAt(t, "", "a server name (\"www.example.com\") or null")
	}
	v := records.Value{Str: strings.ToLower(t.text)}
	if t.kind == tokIdent && v.Str == "null" {
		v.Str = "" // records without a name
	}
	return literal{from: v, to: v}, nil
}

func numberLit(n int64) literal {
	v := records.Value{Lo: uint64(n)}
	return literal{from: v, to: v}
}

// protocolKey is a protocol's name, or its number when it has none.
func protocolKey(p uint8) any {
	name := records.ProtocolName(p)
	if name == strconv.Itoa(int(p)) {
		return int64(p)
	}
	return name
}
