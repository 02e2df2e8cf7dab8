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
}{
	kTime:        {"time", records.ColTime, timeType, "time(N): buckets of N seconds; the point T (a multiple of N, Unix seconds) covers [T-N, T). Not usable in WHERE.", ""},
	kClientIP:    {"client.ip", records.ColClientIP, ipType, "Address of the client (IPv4 or IPv6); WHERE accepts =, !=, <, <=, >, >=, IN (list) and IN CIDR.", ""},
	kServerIP:    {"server.ip", records.ColServerIP, ipType, "Address of the server (IPv4 or IPv6); WHERE accepts =, !=, <, <=, >, >=, IN (list) and IN CIDR.", ""},
	kClientPort:  {"client.port", records.ColClientPort, portType, "Port of the client (0-65535).", ""},
	kServerPort:  {"server.port", records.ColServerPort, portType, "Port of the server (0-65535).", ""},
	kProtocol:    {"protocol", records.ColProtocol, protocolType, "IP protocol: tcp, udp, icmp, ... or a number (0-255); results name the known ones.", ""},
	kApplication: {"application", records.ColApplication, stringType, "Application name (https, dns, ...; unknown when not recognised).", ""},
	kExporter:    {"exporter", records.ColExporter, exporterType, "Address of the router, switch or probe that exported the record (NetFlow, IPFIX, sFlow); null for records without one. WHERE accepts what client.ip does.", "1.2"},
	kServerName:  {"server.name", records.ColServerName, nameType, "Name the client asked for (TLS SNI, HTTP Host, or the DNS answer that gave the server's address), as a capture probe saw it; null when unknown. WHERE accepts = and IN (\"www.example.com\", compared lower-cased; null: records without a name).", "1.3"},
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
	// render returns a value as a Row shows it.
	render func(v records.Value) any
}

var (
	timeType = &keyType{name: "time", words: 1,
		render: func(v records.Value) any { return int64(v.Lo) }}
	ipType = &keyType{name: "ip", words: 2, literal: ipLiteral,
		render: func(v records.Value) any { return records.AddrFromHalves(v.Hi, v.Lo).String() }}
	portType = &keyType{name: "port", words: 1, literal: numberLiteral("port", 65535),
		render: func(v records.Value) any { return int64(v.Lo) }}
	// exporterType is ipType but for records without an exporter (halves 0, 0), shown as null.
	exporterType = &keyType{name: "ip", words: 2, literal: ipLiteral,
		render: func(v records.Value) any {
			if v.Hi == 0 && v.Lo == 0 {
				return nil
			}
			return records.AddrFromHalves(v.Hi, v.Lo).String()
		}}
	protocolType = &keyType{name: "protocol", words: 1, literal: protocolLiteral,
		render: func(v records.Value) any { return protocolKey(uint8(v.Lo)) }}
	stringType = &keyType{name: "string", words: 0, literal: stringLiteral,
		render: func(v records.Value) any { return v.Str }}
	// nameType is a server name: a string, lower-cased in literals as the records keep it, and
	// null for records without one.
	nameType = &keyType{name: "string", words: 0, literal: nameLiteral,
		render: func(v records.Value) any {
			if v.Str == "" {
				return nil
			}
			return v.Str
		}}
)

// maxWords is the size of a gkey's word array: enough for every key at once, with room for a
// few more (TestKeyKinds checks).
const maxWords = 12

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
