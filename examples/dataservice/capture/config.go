package capture

import (
	"time"
)

// Config sets a Table's limits. The zero value gives the defaults.
type Config struct {
	// Slice is the length of the records' time slices. Default: one minute, as the flow
	// collectors' (collect.Limits.Slice).
	Slice time.Duration
	// IdleTimeout ends a conversation without packets for that long. Default: two minutes.
	IdleTimeout time.Duration
	// ClosedTimeout ends a TCP conversation that long after a reset or its second FIN (late
	// retransmissions still count in it). Default: ten seconds.
	ClosedTimeout time.Duration
	// ActiveTimeout renews a conversation older than that at the next slice boundary: an
	// open response is closed (its dtt sampled) and sequence tracking restarts, the client
	// and server staying as they were. Default: 30 minutes.
	ActiveTimeout time.Duration
	// MaxConversations bounds the table. When it is full, a new conversation evicts the
	// one that has been quiet the longest (its record so far is emitted first), counted in
	// Stats.Evicted. Each takes about 960 bytes with its index (96 MB for 100,000, measured).
	// Default: 100,000.
	MaxConversations int
	// MaxNames bounds the cache of DNS answers (address → name) that names servers.
	// Default: 65,536.
	MaxNames int
	// MaxDNSQueries bounds the DNS queries remembered until their answer: only an answer to
	// a query seen names servers and gives the query's record. A new query past it forgets
	// the oldest, which has no record (Stats.DNSForgotten). Default: 8,192 (about 2 MB).
	MaxDNSQueries int
	// DNSTimeout is how long a DNS query waits for its answer; past it, its record says
	// rcode timeout. Default: ten seconds.
	DNSTimeout time.Duration
	// MaxServerNames bounds the distinct server names the records of one hour carry: past
	// it, a record of a conversation with a name not among them has none (null), counted in
	// Stats.NamesLeftOut, so that whoever sends packets cannot make a chart by server.name
	// of any number of groups. Default: 10,000 an hour (240,000 a day).
	MaxServerNames int
	// MaxHTTPPaths bounds the distinct paths (folded, package doc "HTTP") the HTTP records of
	// one hour carry: past it a record's path reads HTTPOther, counted in
	// Stats.HTTPPathsLeftOut. Default: 10,000 an hour.
	MaxHTTPPaths int
	// MaxDNSNames bounds the distinct query names (dns.qname; the root's "" aside) the DNS
	// records of one hour carry: past it a record's name reads HTTPOther, "{other}", counted in
	// Stats.DNSNamesLeftOut. A query needs no answer to make a record (unanswered, its record
	// says rcode timeout), so whoever sends packets chooses these names. Default: 10,000 an
	// hour.
	MaxDNSNames int
	// MaxTLSIssuers bounds the distinct certificate issuers (tls.issuer) the TLS records of one
	// hour carry: past it a record's issuer reads HTTPOther, "{other}", counted in
	// Stats.TLSIssuersLeftOut, since whoever answers a ClientHello chooses its certificate.
	// Default: 10,000 an hour.
	MaxTLSIssuers int
}

func (c *Config) setDefaults() {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.Slice, time.Minute)
	c.Slice = max(c.Slice.Truncate(time.Second), time.Second)
	def(&c.IdleTimeout, 2*time.Minute)
	def(&c.ClosedTimeout, 10*time.Second)
	def(&c.ActiveTimeout, 30*time.Minute)
	if c.MaxConversations <= 0 {
		c.MaxConversations = 100_000
	}
	if c.MaxNames <= 0 {
		c.MaxNames = 65_536
	}
	if c.MaxDNSQueries <= 0 {
		c.MaxDNSQueries = 8192
	}
	def(&c.DNSTimeout, 10*time.Second)
	if c.MaxServerNames <= 0 {
		c.MaxServerNames = 10_000
	}
	if c.MaxHTTPPaths <= 0 {
		c.MaxHTTPPaths = 10_000
	}
	if c.MaxDNSNames <= 0 {
		c.MaxDNSNames = 10_000
	}
	if c.MaxTLSIssuers <= 0 {
		c.MaxTLSIssuers = 10_000
	}
}

// Stats counts what a Table saw.
type Stats struct {
	// Packets and Bytes that reached the table (IP bytes).
	Packets, Bytes uint64
	// Fragments counts IP fragments; LaterFragments those after a datagram's first, which
	// carry no ports and so count here only, in no conversation.
	Fragments, LaterFragments uint64
	// Conversations is how many conversations were started; Active how many are tracked.
	Conversations, Active uint64
	// Evicted counts conversations ended early because the table was full.
	Evicted uint64
	// Records counts the records emitted.
	Records uint64
	// Names is the number of DNS answers cached; DNSQueries the DNS queries awaiting their
	// answer.
	Names, DNSQueries uint64
	// NamesLeftOut counts records that had a server name past Config.MaxServerNames.
	NamesLeftOut uint64
	// HTTP (package doc, "HTTP"): HTTPRecords counts the records of LayerHTTP emitted (not in
	// Records), HTTPUnanswered those without a response; HTTPOrphans counts responses to no
	// request seen (no record); HTTPGivenUp connections whose HTTP the probe stopped following
	// until their next request line, of which HTTPGaps for segments missing where bytes
	// mattered and HTTPTooLong for header blocks past HTTPMaxHeader (or no buffer free);
	// HTTPPathsLeftOut records whose path read HTTPOther.
	HTTPRecords, HTTPUnanswered, HTTPOrphans, HTTPGivenUp, HTTPGaps, HTTPTooLong, HTTPPathsLeftOut uint64
	// DNSRecords counts the records of DNS queries (records.LayerDNS), DNSTimeouts those
	// without an answer; DNSForgotten the queries forgotten unanswered past MaxDNSQueries;
	// DNSNamesLeftOut the records whose query name read HTTPOther, past Config.MaxDNSNames.
	DNSRecords, DNSTimeouts, DNSForgotten, DNSNamesLeftOut uint64
	// TLSRecords counts the records of TLS handshakes (records.LayerTLS); TLSCertsSkipped the
	// certificates not read, their leaf past MaxTLSMessage or MaxTLSBuffered;
	// TLSIssuersLeftOut the records whose issuer read HTTPOther, past Config.MaxTLSIssuers.
	TLSRecords, TLSCertsSkipped, TLSIssuersLeftOut uint64
}
