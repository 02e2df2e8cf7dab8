package records

// Layer is the kind of a record: what one record stands for (the query language's FROM). The
// zero value is the transport, so every record made before the layers is one.
type Layer uint8

// The layers. Append only: the stores keep the number.
const (
	// LayerTransport: one record per conversation and time slice (collectors, the probe).
	LayerTransport Layer = iota
	// LayerHTTP: one record per HTTP/1.x request and its response, seen in clear by the probe.
	LayerHTTP
	// LayerDNS: one record per DNS query over UDP or TCP.
	LayerDNS
	// LayerTLS: one record per TLS handshake.
	LayerTLS
	// NumLayers is the number of layers.
	NumLayers
)

// Limits on the values of a layer's record, in bytes; a longer value is cut where it enters
// (the probe, ingest refuses it).
const (
	MaxMethodLen = 16
	MaxHostLen   = 255
	MaxPathLen   = 512
	MaxQNameLen  = 255
	MaxIssuerLen = 255
)

// HTTP is what a record of LayerHTTP says of its request; zero in records of other layers.
type HTTP struct {
	// Method is the request's method as sent ("GET", "POST"), at most MaxMethodLen bytes.
	Method string
	// Status is the response's status code, 0 when the request had no response (timed out,
	// reset, or the probe saw only the request).
	Status uint16
	// Host is the Host header without its port, lower case; "" when absent.
	Host string
	// Path is the request target without its query string, at most MaxPathLen bytes; the probe
	// folds numbers and ids in it (package capture says how) so that paths stay few.
	Path string
}

// DNS is what a record of LayerDNS says of its query; zero in records of other layers.
type DNS struct {
	// QName is the name asked, lower case, without the final dot.
	QName string
	// QType is the query type's number (1 A, 28 AAAA, ...).
	QType uint16
	// RCode is the answer's response code (0 NOERROR, 3 NXDOMAIN, ...), RCodeTimeout when
	// the query had no answer.
	RCode uint16
}

// RCodeTimeout is DNS.RCode for a query without an answer; DNS codes are 12 bits at most.
const RCodeTimeout = 0xFFFF

// TLS is what a record of LayerTLS says of its handshake; zero in records of other layers. The
// SNI is the record's ServerName.
type TLS struct {
	// Version is the negotiated version as on the wire (0x0301 TLS 1.0 .. 0x0304 TLS 1.3, from
	// supported_versions where present); 0 when the server's hello was not seen.
	Version uint16
	// Cipher is the negotiated cipher suite's IANA number; 0 when unknown.
	Cipher uint16
	// NotAfter is the server certificate's expiry in Unix seconds where the certificate was in
	// clear (TLS 1.2 and older); 0 when unknown.
	NotAfter int64
	// Issuer is the certificate's issuer (its distinguished name as a string), at most
	// MaxIssuerLen bytes; "" when unknown.
	Issuer string
}

// LayerColumns are the columns of the layers (ColLayer to ColTLSIssuer), in table order: a
// store leaves them to their defaults (0, empty) in a batch of transport records alone.
var LayerColumns = ColumnRange(ColLayer, ColTLSIssuer)

// LayerMask has the bit (1 << c) of each of LayerColumns.
const LayerMask = 1<<(ColTLSIssuer+1) - 1<<ColLayer
