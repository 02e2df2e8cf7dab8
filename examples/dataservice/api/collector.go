package api

import (
	"time"

	"github.com/fnapi/fnapi/decl"
)

// CollectorStatus answers what the flow collector has seen, per exporter and in total, from
// the collector's own counters (the figures /metrics shows, and the flows per second of the
// last minute). Any valid token may call it, of every role (read-only included, as the service
// registers it): the figures tell whether routers export, and nothing of the records themselves.
var CollectorStatus = decl.Func[decl.None, CollectorStatusResult]("collector-status",
	decl.Since("1.2"), decl.Requires(decl.Token), decl.ReadOnly(),
	decl.Describe("Answers the flow collector's status: the sockets it listens on, and per exporter (a device that sends NetFlow, IPFIX or sFlow) "+
		"the protocols seen, first and last datagram, datagrams, flows, flows per second over the last minute, decode errors, drops and templates; "+
		"then the totals. Without -netflow and -sflow it answers enabled false and no exporters. "+
		"With -capture or -capture-file, capture holds the probe's counters: packets, drops, records, and per layer (http, dns, tls) the records made and what the probe could not read."))

// CollectorStatusResult is the answer of collector-status.
type CollectorStatusResult struct {
	// Enabled is false when the service collects no flows (neither -netflow nor -sflow); then
	// Listen and Exporters are empty and Totals zero.
	Enabled bool `json:"enabled"`
	// Listen holds the sockets the collector receives on.
	Listen []CollectorSocket `json:"listen"`
	// MaxExporters is how many exporters the collector keeps at once; datagrams from more are
	// dropped and counted in Totals.RefusedDatagrams.
	MaxExporters int `json:"max_exporters"`
	// Exporters holds every exporter known, by address.
	Exporters []ExporterStatus `json:"exporters"`
	// Totals adds up the exporters' counters, with the collector's own.
	Totals CollectorTotals `json:"totals"`
	// SNMP holds, for each exporter the snmp configuration key polls, what its last poll
	// gave: a failed poll leaves the names last found in use, and says why here.
	SNMP []SNMPStatus `json:"snmp"`
	// Capture is the capture probe's counters (-capture, -capture-file); absent without one.
	Capture *CaptureStatus `json:"capture,omitempty"`
	// Queue is the queue's state (-queue); absent without one.
	Queue *QueueStatus `json:"queue,omitempty"`
	// BGP holds the BGP speaker's sessions (-bgp), refused routers last; absent without one.
	BGP []BGPPeer `json:"bgp,omitempty"`
}

// BGPPeer is one router's BGP session with the speaker (-bgp).
type BGPPeer struct {
	Address string    `json:"address" jsonschema:"description=The router's address"`
	AS      uint32    `json:"as" jsonschema:"description=Its AS number; 0 before its session opened"`
	State   string    `json:"state" jsonschema:"description=established\\, idle\\, connect\\, active\\, opensent\\, openconfirm\\, or refused (outside -bgp-peers)"`
	Routes  int       `json:"routes" jsonschema:"description=Routes learned from it (IPv4 and IPv6 unicast)"`
	Since   time.Time `json:"since" jsonschema:"description=When its session last changed state"`
}

// QueueStatus is the state of the queue the node publishes to (-queue) and consumes from
// (-consume): its counters and the stream's.
type QueueStatus struct {
	Published   uint64  `json:"published" jsonschema:"description=Records this node published to the stream"`
	Refused     uint64  `json:"refused" jsonschema:"description=Records this node could not publish (NATS unreachable\\, stream full); the collectors count them lost"`
	Pending     uint64  `json:"pending" jsonschema:"description=Batches waiting in the stream to be stored (the consumers' lag)"`
	Redelivered uint64  `json:"redelivered" jsonschema:"description=Batches this node's consumer was given again (after a crash\\, a time-out or an unavailable store)"`
	DeadLetters uint64  `json:"dead_letters" jsonschema:"description=Batches the store refused for their content\\, kept in the dead-letter subject"`
	Stored      uint64  `json:"stored" jsonschema:"description=Records of the batches this node's consumer acknowledged (stored\\, or found stored when given again)"`
	OldestAge   float64 `json:"oldest_age" jsonschema:"description=Age of the oldest batch waiting\\, in seconds; 0 when none waits"`
	Error       string  `json:"error,omitempty" jsonschema:"description=Why the queue cannot be reached; absent when it can"`
}

// SNMPStatus is the last SNMP poll of one exporter.
type SNMPStatus struct {
	Address    string     `json:"address" jsonschema:"description=The exporter's address"`
	Name       string     `json:"name" jsonschema:"description=Its name in use (sysName as last polled\\, else the static one); empty when none"`
	Interfaces int        `json:"interfaces" jsonschema:"description=Interfaces the last answer named"`
	LastPoll   *time.Time `json:"last_poll" jsonschema:"description=When it was last polled; null before the first poll"`
	LastAnswer *time.Time `json:"last_answer" jsonschema:"description=When it last answered; null when it never did"`
	Error      string     `json:"error" jsonschema:"description=Why the last poll failed; empty when it answered"`
}

// CaptureStatus counts what the capture probe saw and stored.
type CaptureStatus struct {
	// Sources are the interfaces captured on, or the capture file read.
	Sources []string `json:"sources"`
	// Finished is how many sources ended (a file read to its end).
	Finished int `json:"finished"`
	// Packets is what the probe's conversation tables saw.
	Packets uint64 `json:"packets"`
	// Drops counts the packets the kernel's capture rings dropped because the probe did not
	// keep up (for a file: frames too large to read).
	Drops uint64 `json:"drops"`
	// Evicted counts conversations ended early because the table was full (100,000).
	Evicted uint64 `json:"evicted"`
	// Records is how many records the probe made, Stored how many were stored, and Failed how
	// many were lost because the store refused their batch.
	Records uint64 `json:"records"`
	Stored  uint64 `json:"stored"`
	Failed  uint64 `json:"failed"`
	// Invalid counts records dropped as no store may hold them: times before 1970 or more
	// than a day ahead (a capture file's clock).
	Invalid uint64 `json:"invalid"`
	// NamesLeftOut counts records without their server name: past 10,000 distinct names an
	// hour per source.
	NamesLeftOut uint64 `json:"names_left_out"`
	// HTTP, DNS and TLS count the records of the application layers (FROM http, dns, tls) and
	// what the probe could not read of them (capture's package doc, "Application layers").
	HTTP CaptureHTTP `json:"http"`
	DNS  CaptureDNS  `json:"dns"`
	TLS  CaptureTLS  `json:"tls"`
}

// CaptureHTTP counts the capture probe's HTTP records.
type CaptureHTTP struct {
	Records      uint64 `json:"records" jsonschema:"description=Records of HTTP requests made"`
	Unanswered   uint64 `json:"unanswered" jsonschema:"description=Of those\\, requests without a response (reset\\, closed\\, the conversation ended)"`
	Orphans      uint64 `json:"orphans" jsonschema:"description=Responses to no request seen (the probe started late or lost it); no record"`
	GivenUp      uint64 `json:"given_up" jsonschema:"description=Connections no longer followed until their next request line: a segment missing (gaps)\\, a header block past 4 KiB (too_long)\\, more than 8 requests waiting"`
	Gaps         uint64 `json:"gaps" jsonschema:"description=Of given_up\\, for a segment missing where bytes mattered"`
	TooLong      uint64 `json:"too_long" jsonschema:"description=Of given_up\\, for a header block past 4 KiB (or no buffer free)"`
	PathsLeftOut uint64 `json:"paths_left_out" jsonschema:"description=Records whose path reads {other}: past 10\\,000 distinct paths an hour per source"`
}

// CaptureDNS counts the capture probe's DNS records.
type CaptureDNS struct {
	Records      uint64 `json:"records" jsonschema:"description=Records of DNS queries made"`
	Timeouts     uint64 `json:"timeouts" jsonschema:"description=Of those\\, queries unanswered after 10 s (rcode timeout)"`
	Forgotten    uint64 `json:"forgotten" jsonschema:"description=Queries forgotten unanswered past 8\\,192 waiting; no record"`
	NamesLeftOut uint64 `json:"names_left_out" jsonschema:"description=Records whose query name reads {other}: past 10\\,000 distinct names an hour per source"`
}

// CaptureTLS counts the capture probe's TLS records.
type CaptureTLS struct {
	Records        uint64 `json:"records" jsonschema:"description=Records of TLS handshakes made"`
	CertsSkipped   uint64 `json:"certs_skipped" jsonschema:"description=Certificates not read (a leaf past 64 KiB\\, or 64 MiB buffered for a source): their handshake's record has no tls.not_after"`
	IssuersLeftOut uint64 `json:"issuers_left_out" jsonschema:"description=Records whose issuer reads {other}: past 10\\,000 distinct issuers an hour per source"`
}

// CollectorSocket is one UDP socket of the collector.
type CollectorSocket struct {
	// Protocol is "netflow" (NetFlow v5, v9 and IPFIX) or "sflow" (sFlow v5).
	Protocol string `json:"protocol"`
	// Address is the socket's address, host:port.
	Address string `json:"address"`
}

// ExporterStatus is what the collector knows of one exporter: the source address of its
// datagrams.
type ExporterStatus struct {
	Address string `json:"address" jsonschema:"description=The source address of the exporter's datagrams"`
	// Protocols lists the kinds of datagrams that decoded: "netflow-v5", "netflow-v9", "ipfix"
	// and "sflow-v5", in that order.
	Protocols []string  `json:"protocols" jsonschema:"description=Kinds of datagrams that decoded: netflow-v5\\, netflow-v9\\, ipfix\\, sflow-v5"`
	FirstSeen time.Time `json:"first_seen" jsonschema:"description=When its first datagram arrived (since the collector started or the exporter was last forgotten)"`
	LastSeen  time.Time `json:"last_seen" jsonschema:"description=When its last datagram arrived"`
	Datagrams uint64    `json:"datagrams" jsonschema:"description=Datagrams received"`
	Dropped   uint64    `json:"dropped" jsonschema:"description=Datagrams dropped because the collector's queue was full"`
	// DecodeErrors counts datagrams that did not decode, in full or in part.
	DecodeErrors   uint64  `json:"decode_errors" jsonschema:"description=Datagrams that did not decode\\, in full or in part"`
	Flows          uint64  `json:"flows" jsonschema:"description=Flows decoded (sFlow: flow samples)"`
	FlowsPerSecond float64 `json:"flows_per_second" jsonschema:"description=Flows decoded in the last minute per second (over the time since first seen when shorter)"`
	// RecordsInvalid counts records of flows refused by validation (an exporter with a wrong
	// clock).
	RecordsInvalid      uint64 `json:"records_invalid" jsonschema:"description=Records of flows refused by validation: times before 1970 or more than a day ahead"`
	SetsWithoutTemplate uint64 `json:"sets_without_template" jsonschema:"description=NetFlow v9 or IPFIX data sets dropped because their template was unknown or expired"`
	Templates           int64  `json:"templates" jsonschema:"description=NetFlow v9 and IPFIX templates held"`
	TemplatesRefused    uint64 `json:"templates_refused" jsonschema:"description=Templates refused by the bounds on templates and their fields"`
	FieldsIgnored       uint64 `json:"fields_ignored" jsonschema:"description=nProbe or Cisco AVC fields ignored (the rest of their records kept): of a length no unsigned integer has\\, or too large a value"`
}

// CollectorTotals are the collector's counters in total.
type CollectorTotals struct {
	Exporters      int     `json:"exporters" jsonschema:"description=Exporters known"`
	Datagrams      uint64  `json:"datagrams" jsonschema:"description=Datagrams received from known exporters"`
	Dropped        uint64  `json:"dropped" jsonschema:"description=Datagrams dropped because the queue was full"`
	DecodeErrors   uint64  `json:"decode_errors" jsonschema:"description=Datagrams that did not decode\\, in full or in part"`
	Flows          uint64  `json:"flows" jsonschema:"description=Flows decoded"`
	FlowsPerSecond float64 `json:"flows_per_second" jsonschema:"description=The exporters' flows per second added up"`
	RecordsInvalid uint64  `json:"records_invalid" jsonschema:"description=Records refused by validation"`
	// RefusedDatagrams counts datagrams from exporters beyond MaxExporters.
	RefusedDatagrams uint64 `json:"refused_datagrams" jsonschema:"description=Datagrams dropped because max_exporters exporters were known"`
	RecordsStored    uint64 `json:"records_stored" jsonschema:"description=Records stored"`
	StoreErrors      uint64 `json:"store_errors" jsonschema:"description=Batches the records store refused"`
	RecordsLost      uint64 `json:"records_lost" jsonschema:"description=Records of the batches the store refused"`
}
