package records

import (
	"encoding/json"
	"math"
	"net/netip"
	"strconv"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/fnapi/fnapi/examples/dataservice/histogram"
)

// Limits on the values of a record.
const (
	// MaxCount is the largest bytes or packets value of one side of a record, 2^53-1: every
	// JSON client reads it exactly, and no real conversation sends more in one time slice.
	MaxCount = 1<<53 - 1
	// MaxApplicationLen is the longest application name, in bytes.
	MaxApplicationLen = 64
	// MaxFuture is how far past the current time a record's time may be (clock skew between
	// collectors), beyond which it is rejected as impossible.
	MaxFuture = 24 * time.Hour
)

// Record is one traffic record: what a client and a server sent each other over one
// conversation during one time slice. It is valid when Validate says so; ParseRecord builds
// valid records from JSON, and its JSON form (MarshalJSON) is the one ParseRecord reads.
type Record struct {
	// Time is the start of the time slice, in Unix seconds.
	Time int64
	// Protocol is the IP protocol number (TCP, UDP, ICMP, ...).
	Protocol uint8
	// Application names what the conversation is ("https", "dns", ..., Unknown); lower case.
	Application string
	// Client is the side that opened the conversation.
	Client Endpoint
	// Server is the side that answered it.
	Server Endpoint
	// Exporter is the address of the device that exported the record (a router, switch or
	// probe sending NetFlow, IPFIX or sFlow); the zero Addr when the record has none. The
	// unspecified address :: is refused: stores keep "none" as its halves, 0 and 0.
	Exporter netip.Addr
	// InIf and OutIf are the SNMP indexes of the interfaces through which the client's traffic
	// entered and left the exporter (the server's traffic took them the other way round); 0
	// when unknown.
	InIf, OutIf uint32
	// CT, SRT and DTT are the conversation's connection time, server response time and data
	// transfer time samples of the slice (a capture probe measures them; package capture
	// defines them).
	CT, SRT, DTT Timing
	// Resets counts the packets with RST set, from either side.
	Resets uint64
	// ServerName is the name the client asked for (TLS SNI, HTTP Host or the DNS answer that
	// gave the server's address), lower case; "" when unknown.
	ServerName string
	// ExporterName is the exporter's name (its sysName polled by SNMP, or the configuration's
	// static name); InIf and OutIf name its interfaces (ifName and ifAlias); "" when unknown.
	// Like each Endpoint's Place, the service resolves them as it stores the record (package
	// netctx) and keeps what was known then; ingest does not accept them.
	ExporterName string
	InIfName     string
	InIfAlias    string
	OutIfName    string
	OutIfAlias   string
	// Layer is the kind of record (LayerTransport unless set); HTTP, DNS and TLS hold the keys
	// of a record of that layer, zero in the others.
	Layer Layer
	HTTP  HTTP
	DNS   DNS
	TLS   TLS
}

// Timing is the samples of one time metric in one record: their sum in microseconds and their
// count. Stores keep both, not the average, so that any group's average (Sum/Samples) is
// exact; integer microseconds make every engine add them alike.
type Timing struct {
	// Sum is the sum of the samples in microseconds, at most MaxCount.
	Sum uint64
	// Samples is how many samples there were, at most MaxCount; 0 with Sum 0 when none.
	Samples uint64
	// Hist is the samples' distribution, for percentiles: Samples values, or empty when the
	// samples came averaged (Buckets then puts them at their average).
	Hist histogram.Histogram
}

// Seconds returns the average sample in seconds, and false without samples.
func (t Timing) Seconds() (float64, bool) {
	if t.Samples == 0 {
		return 0, false
	}
	return float64(t.Sum) / float64(t.Samples) / 1e6, true
}

// TimingOf returns the Timing of samples samples averaging avg seconds (their sum rounded to
// the microsecond); ok is false when avg is negative or not finite, or the sum or samples pass
// MaxCount.
func TimingOf(avg float64, samples uint64) (t Timing, ok bool) {
	if math.IsNaN(avg) || avg < 0 || samples > MaxCount {
		return Timing{}, false
	}
	sum := math.Round(avg * 1e6 * float64(samples))
	if sum > MaxCount {
		return Timing{}, false
	}
	return Timing{Sum: uint64(sum), Samples: samples}, true
}

// Add adds one sample of d (a negative one as 0): to the sum rounded to the microsecond,
// saturating at MaxCount, and to the histogram in seconds. A Timing of MaxCount samples takes
// no more. It is how the capture probe measures: the conversions of a time's units are this,
// TimingOf and Seconds.
func (t *Timing) Add(d time.Duration) {
	if t.Samples == MaxCount {
		return
	}
	d = max(d, 0)
	t.Sum = min(t.Sum+uint64((d+time.Microsecond/2)/time.Microsecond), MaxCount)
	t.Samples++
	t.Hist.Add(float64(d) / 1e9)
}

// problem says what is wrong with t, or "".
func (t Timing) problem() string {
	switch {
	case t.Samples > MaxCount || t.Sum > MaxCount:
		return "above 2^53-1"
	case t.Samples == 0 && t.Sum != 0:
		return "a time without samples"
	case t.Hist.Count() != 0 && t.Hist.Count() != t.Samples:
		return "a histogram of " + strconv.FormatUint(t.Hist.Count(), 10) + " samples, not " + strconv.FormatUint(t.Samples, 10)
	}
	return ""
}

// Endpoint is one side of a conversation and what it sent.
type Endpoint struct {
	// IP is the address, IPv4 or IPv6 without zone; IPv4-mapped IPv6 addresses are unmapped.
	IP netip.Addr
	// Port is the TCP or UDP port; 0 for protocols without ports.
	Port uint16
	// Bytes is what this side sent, at most MaxCount.
	Bytes uint64
	// Packets is how many packets this side sent, at most MaxCount.
	Packets uint64
	// RTT is the round trip between the capture probe and this side (its samples).
	RTT Timing
	// Retrans counts this side's retransmitted TCP segments, ZeroWindows its packets that
	// advertised a zero receive window; each at most MaxCount.
	Retrans, ZeroWindows uint64
	// Place is where the address is, as the service resolved it when it stored the record.
	Place
}

// Place is the context of an address (package netctx resolves it): its zone, autonomous
// system and country, each empty (zero) when unknown. The service fills it as it stores a
// record, so a record keeps what was known when it arrived; ingest does not accept it.
type Place struct {
	// Zone is the operator's zone holding the address; "" outside every zone (the query
	// language's "other").
	Zone string
	// ASN is the number of the autonomous system announcing the address, ASName its
	// organisation as the GeoIP file named it; 0 and "" when unknown.
	ASN    uint32
	ASName string
	// Country is the ISO 3166 alpha-2 code of the address's country; "" when unknown.
	Country string
	// ASPath and Communities are those of the BGP route covering the address in the table of
	// the record's exporter (package bgp): the path's ASes, the router's neighbour first and
	// the origin last, at most MaxASPath; the communities as "A:B" and large ones as "A:B:C",
	// at most MaxCommunities. Empty when no route covers it. Shared with the learned route,
	// which is never changed: read them, never write them.
	ASPath      []uint32
	Communities []string
}

// The bounds of a Place's route (the first ones kept): a longer AS path is one prepended past
// use (the Internet's longest distinct paths hold about 15 ASes), and more communities than
// that are a router's internal tags, which a key could not show usefully.
const (
	MaxASPath      = 32
	MaxCommunities = 32
)

// Validate reports the first thing wrong with r as a *RecordError, with now the current time
// (a record may not be more than MaxFuture after it): a time before 1970, an invalid, zoned or
// IPv4-mapped address, a count above MaxCount, or an empty, over-long, upper-case or
// non-printable application name.
func (r Record) Validate(now time.Time) error {
	if r.Time < 0 {
		return &RecordError{Field: "time", Reason: "before 1970"}
	}
	if r.Time > now.Add(MaxFuture).Unix() {
		return &RecordError{Field: "time", Reason: "more than a day in the future"}
	}
	if reason := applicationProblem(r.Application); reason != "" {
		return &RecordError{Field: "application", Reason: reason}
	}
	if err := r.Client.validate("client"); err != nil {
		return err
	}
	if err := r.Server.validate("server"); err != nil {
		return err
	}
	if r.Exporter.IsValid() {
		reason := addrProblem(r.Exporter)
		if r.Exporter == netip.IPv6Unspecified() {
			reason = "the unspecified address :: names no exporter"
		}
		if reason != "" {
			return &RecordError{Field: "exporter", Reason: reason}
		}
	}
	for _, t := range []struct {
		name string
		t    Timing
	}{{"ct", r.CT}, {"srt", r.SRT}, {"dtt", r.DTT}} {
		if reason := t.t.problem(); reason != "" {
			return &RecordError{Field: t.name, Reason: reason}
		}
	}
	if r.Resets > MaxCount {
		return &RecordError{Field: "resets", Reason: "above 2^53-1"}
	}
	if reason := serverNameProblem(r.ServerName); reason != "" {
		return &RecordError{Field: "server_name", Reason: reason}
	}
	return r.layerProblem()
}

// MaxServerNameLen is the longest server name, in bytes (a DNS name's limit).
const MaxServerNameLen = 253

// serverNameProblem says what is wrong with a server name, or "" when nothing is ("" is no
// name).
func serverNameProblem(name string) string {
	if name == "" {
		return ""
	}
	if len(name) > MaxServerNameLen {
		return "longer than " + strconv.Itoa(MaxServerNameLen) + " bytes"
	}
	return applicationProblem(name)
}

// addrProblem says what is wrong with a valid address as a record holds it, or "".
func addrProblem(a netip.Addr) string {
	switch {
	case a.Zone() != "":
		return "address with a zone"
	case a.Is4In6():
		return "IPv4-mapped address (use the IPv4 form)"
	}
	return ""
}

// ValidateBatch validates every record of a batch a store is given; the first bad one is a
// *BatchError.
func ValidateBatch(recs []Record, now time.Time) error {
	for i, r := range recs {
		if err := r.Validate(now); err != nil {
			return &BatchError{Index: i, Err: err}
		}
	}
	return nil
}

func (e Endpoint) validate(side string) error {
	switch {
	case !e.IP.IsValid():
		return &RecordError{Field: side + ".ip", Reason: "missing address"}
	case addrProblem(e.IP) != "":
		return &RecordError{Field: side + ".ip", Reason: addrProblem(e.IP)}
	case e.Bytes > MaxCount:
		return &RecordError{Field: side + ".bytes", Reason: "above 2^53-1"}
	case e.Packets > MaxCount:
		return &RecordError{Field: side + ".packets", Reason: "above 2^53-1"}
	case e.RTT.problem() != "":
		return &RecordError{Field: side + ".rtt", Reason: e.RTT.problem()}
	case e.Retrans > MaxCount:
		return &RecordError{Field: side + ".retrans", Reason: "above 2^53-1"}
	case e.ZeroWindows > MaxCount:
		return &RecordError{Field: side + ".zero_windows", Reason: "above 2^53-1"}
	}
	return nil
}

// applicationProblem says what is wrong with an application name, or "" when nothing is.
func applicationProblem(name string) string {
	switch {
	case name == "":
		return "empty"
	case len(name) > MaxApplicationLen:
		return "longer than " + strconv.Itoa(MaxApplicationLen) + " bytes"
	case !utf8.ValidString(name):
		return "not valid UTF-8"
	}
	for _, c := range name {
		if !unicode.IsPrint(c) {
			return "contains a non-printable character"
		}
		if unicode.ToLower(c) != c {
			return "not lower case"
		}
	}
	return ""
}

// MarshalJSON writes r in the ingest format: time in Unix seconds, protocol by name when it has
// one (else its number), addresses as text; exporter, in_if, out_if and the capture probe's
// fields only when set (a time as its average in seconds and its samples); a layer's record
// its "layer" and member (layer_json.go).
func (r Record) MarshalJSON() ([]byte, error) {
	var proto any = r.Protocol
	if name := ProtocolName(r.Protocol); name[0] < '0' || name[0] > '9' {
		proto = name
	}
	var exporter *netip.Addr
	if r.Exporter.IsValid() {
		exporter = &r.Exporter
	}
	var layer string
	var member [NumLayers]any
	if r.Layer != LayerTransport && r.Layer < NumLayers {
		layer, member[r.Layer] = r.Layer.String(), r.layerJSON()
	}
	return json.Marshal(struct {
		Time        int64       `json:"time"`
		Protocol    any         `json:"protocol"`
		Application string      `json:"application"`
		Client      endpoint    `json:"client"`
		Server      endpoint    `json:"server"`
		Exporter    *netip.Addr `json:"exporter,omitempty"`
		InIf        uint32      `json:"in_if,omitempty"`
		OutIf       uint32      `json:"out_if,omitempty"`
		CT          *float64    `json:"ct,omitempty"`
		CTSamples   uint64      `json:"ct_samples,omitempty"`
		CTHist      [][2]uint64 `json:"ct_hist,omitempty"`
		SRT         *float64    `json:"srt,omitempty"`
		SRTSamples  uint64      `json:"srt_samples,omitempty"`
		SRTHist     [][2]uint64 `json:"srt_hist,omitempty"`
		DTT         *float64    `json:"dtt,omitempty"`
		DTTSamples  uint64      `json:"dtt_samples,omitempty"`
		DTTHist     [][2]uint64 `json:"dtt_hist,omitempty"`
		Resets      uint64      `json:"resets,omitempty"`
		ServerName  string      `json:"server_name,omitempty"`
		Layer       string      `json:"layer,omitempty"`
		HTTP        any         `json:"http,omitempty"`
		DNS         any         `json:"dns,omitempty"`
		TLS         any         `json:"tls,omitempty"`
	}{r.Time, proto, r.Application, endpointOf(r.Client), endpointOf(r.Server), exporter, r.InIf, r.OutIf,
		average(r.CT), r.CT.Samples, histJSON(r.CT.Hist), average(r.SRT), r.SRT.Samples, histJSON(r.SRT.Hist),
		average(r.DTT), r.DTT.Samples, histJSON(r.DTT.Hist), r.Resets, r.ServerName, layer,
		member[LayerHTTP], member[LayerDNS], member[LayerTLS]})
}

// average is t's average in seconds, nil without samples.
func average(t Timing) *float64 {
	if s, ok := t.Seconds(); ok {
		return &s
	}
	return nil
}

// endpoint is the JSON form of an Endpoint.
type endpoint struct {
	IP          netip.Addr  `json:"ip"`
	Port        uint16      `json:"port"`
	Bytes       uint64      `json:"bytes"`
	Packets     uint64      `json:"packets"`
	RTT         *float64    `json:"rtt,omitempty"`
	RTTSamples  uint64      `json:"rtt_samples,omitempty"`
	RTTHist     [][2]uint64 `json:"rtt_hist,omitempty"`
	Retrans     uint64      `json:"retrans,omitempty"`
	ZeroWindows uint64      `json:"zero_windows,omitempty"`
}

func endpointOf(e Endpoint) endpoint {
	return endpoint{e.IP, e.Port, e.Bytes, e.Packets, average(e.RTT), e.RTT.Samples, histJSON(e.RTT.Hist), e.Retrans, e.ZeroWindows}
}

// histJSON is h in the ingest format, its non-empty buckets as [index, count] pairs; nil when
// empty.
func histJSON(h histogram.Histogram) [][2]uint64 {
	var out [][2]uint64
	for _, b := range h.Buckets() {
		out = append(out, [2]uint64{uint64(b.Index), b.Count})
	}
	return out
}
