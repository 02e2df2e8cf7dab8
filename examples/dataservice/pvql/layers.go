package pvql

import (
	"strconv"
	"strings"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// The application layers (DESIGN.md, "Application layers"): FROM http, dns or tls reads the
// records of that layer (records.Query.Layer), whose keys are those of keyLayers; the other
// keys, the metrics and the functions apply to every layer. A key of another layer than the
// statement's is a *SyntaxError naming its layer (checkLayer).

// keyLayers are the keys of one layer only, with their layer.
var keyLayers = map[keyKind]records.Layer{
	kHTTPMethod: records.LayerHTTP, kHTTPStatus: records.LayerHTTP, kHTTPHost: records.LayerHTTP, kHTTPPath: records.LayerHTTP,
	kDNSQName: records.LayerDNS, kDNSQType: records.LayerDNS, kDNSRCode: records.LayerDNS,
	kTLSVersion: records.LayerTLS, kTLSCipher: records.LayerTLS, kTLSNotAfter: records.LayerTLS, kTLSIssuer: records.LayerTLS,
}

// layerUse is a key of one layer as a statement names it, for checkLayer.
type layerUse struct {
	kind keyKind
	at   token
}

// noteLayer remembers t, naming key k in BY or WHERE, when k is a key of one layer.
func (p *parser) noteLayer(k keyKind, t token) {
	if _, ok := keyLayers[k]; ok {
		p.layered = append(p.layered, layerUse{k, t})
	}
}

// checkLayer refuses the first key of st naming a layer other than st's (FROM, wherever it
// stands in the statement).
func (p *parser) checkLayer(st *Statement) error {
	defer func() { p.layered = nil }()
	from := layers[st.layer].layer
	for _, u := range p.layered {
		if l := keyLayers[u.kind]; l != from {
			return p.errorAt(u.at, keyKinds[u.kind].name+" is a key of layer "+l.String()+", not of "+from.String(),
				"a key of layer "+from.String()+", or FROM "+l.String())
		}
	}
	return nil
}

// The types of the layers' keys.
var (
	// httpStatusType is an HTTP status, null without a response.
	httpStatusType = &keyType{name: "status", words: 1, literal: idLiteralMax("an HTTP status (100-999) or null", 999),
		render: func(v records.Value, _ []string) any { return nullNumber(v.Lo) }}
	// qnameType is a DNS name: lower-cased without its final dot in literals, as the records
	// keep it; null for none.
	qnameType = &keyType{name: "string", words: 0, literal: qnameLiteral,
		render: func(v records.Value, _ []string) any { return nullString(v.Str) }}
	qtypeType = &keyType{name: "dns_type", words: 1, literal: codeLiteral(records.ParseQType, false, `a DNS type ("A", "AAAA", ... or a number 0-65535)`),
		render: func(v records.Value, _ []string) any { return records.QTypeName(uint16(v.Lo)) }}
	rcodeType = &keyType{name: "dns_rcode", words: 1, literal: codeLiteral(records.ParseRCode, false, `a DNS response code ("NOERROR", "NXDOMAIN", ..., "timeout" or a number 0-4095)`),
		render: func(v records.Value, _ []string) any { return records.RCodeName(uint16(v.Lo)) }}
	tlsVersionType = &keyType{name: "tls_version", words: 1, literal: tlsVersionLiteral,
		render: func(v records.Value, _ []string) any {
			if n := records.TLSVersionName(uint16(v.Lo)); n != "" {
				return n
			}
			return nullNumber(v.Lo)
		}}
	cipherType = &keyType{name: "tls_cipher", words: 1, literal: codeLiteral(records.ParseCipher, true, "a cipher suite's IANA name (TLS_AES_128_GCM_SHA256), its number, or null"),
		render: func(v records.Value, _ []string) any {
			if n := records.CipherName(uint16(v.Lo)); n != "" {
				return n
			}
			return nullNumber(v.Lo)
		}}
	// expiryType is a time in Unix seconds, null when unknown (0).
	expiryType = &keyType{name: "time", words: 1, literal: idLiteralMax("Unix seconds or null", 1<<62),
		render: func(v records.Value, _ []string) any { return nullNumber(v.Lo) }}
)

// nullNumber is n, or nil (null) when 0.
func nullNumber(n uint64) any {
	if n == 0 {
		return nil
	}
	return int64(n)
}

// idLiteralMax parses a number 0..max (expected names it), or null for 0.
func idLiteralMax(expected string, max int64) func(p *parser, t token, prefix bool) (literal, error) {
	return func(p *parser, t token, _ bool) (literal, error) {
		if t.kind == tokIdent && strings.EqualFold(t.text, "null") {
			return numberLit(0), nil
		}
		n, err := p.integer(t, 0, expected)
		if err == nil && n > max {
			err = p.errorAt(t, "out of range", expected)
		}
		return numberLit(n), err
	}
}

// codeLiteral parses a code by name or number with parse (names as text or bare words; a
// number as a number or as text); with null, null for 0 (unknown).
func codeLiteral(parse func(string) (uint16, bool), null bool, expected string) func(p *parser, t token, prefix bool) (literal, error) {
	return func(p *parser, t token, _ bool) (literal, error) {
		if null && t.kind == tokIdent && strings.EqualFold(t.text, "null") {
			return numberLit(0), nil
		}
		if t.kind == tokIdent || t.kind == tokString || t.kind == tokNumber {
			if c, ok := parse(t.text); ok {
				return numberLit(int64(c)), nil
			}
			if n, err := strconv.ParseUint(t.text, 10, 16); err == nil && t.kind == tokNumber {
				return numberLit(int64(n)), nil
			}
		}
		return literal{}, p.errorAt(t, "", expected)
	}
}

func tlsVersionLiteral(p *parser, t token, _ bool) (literal, error) {
	const expected = `a TLS version ("1.0" to "1.3") or null`
	if t.kind == tokIdent && strings.EqualFold(t.text, "null") {
		return numberLit(0), nil
	}
	if v, ok := records.ParseTLSVersion(t.text); ok && (t.kind == tokString || t.kind == tokNumber) {
		return numberLit(int64(v)), nil
	}
	return literal{}, p.errorAt(t, "", expected)
}

func qnameLiteral(p *parser, t token, _ bool) (literal, error) {
	if t.kind != tokString && t.kind != tokIdent {
		return literal{}, p.errorAt(t, "", "a DNS name (\"www.example.com\") or null")
	}
	v := records.Value{Str: strings.TrimSuffix(strings.ToLower(t.text), ".")}
	if t.kind == tokIdent && v.Str == "null" {
		v.Str = ""
	}
	return literal{from: v, to: v}, nil
}
