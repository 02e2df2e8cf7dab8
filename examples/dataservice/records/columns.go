package records

import (
	"database/sql/driver"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// Column is a field of the records table that queries group by, filter on or sum. Each is
// described once, in columns; every store derives its table, its inserts and its SQL from that
// table, so a new field is one row there (and its Record field).
type Column int

// The columns of the records table, in table order. Append only: a new column goes last,
// before NumColumns, so that a released schema step that added a range of them (ColumnRange) keeps
// adding those.
const (
	ColTime Column = iota
	ColProtocol
	ColApplication
	ColClientIP
	ColClientPort
	ColClientBytes
	ColClientPackets
	ColServerIP
	ColServerPort
	ColServerBytes
	ColServerPackets
	ColExporter
	ColInIf
	ColOutIf
	ColClientRTT
	ColClientRTTSamples
	ColClientRetrans
	ColClientZeroWindows
	ColServerRTT
	ColServerRTTSamples
	ColServerRetrans
	ColServerZeroWindows
	ColCT
	ColCTSamples
	ColSRT
	ColSRTSamples
	ColDTT
	ColDTTSamples
	ColResets
	ColServerName
	ColClientZone
	ColServerZone
	ColClientASN
	ColClientASName
	ColServerASN
	ColServerASName
	ColClientCountry
	ColServerCountry
	ColExporterName
	ColInIfName
	ColInIfAlias
	ColOutIfName
	ColOutIfAlias
	ColClientRTTHist
	ColServerRTTHist
	ColCTHist
	ColSRTHist
	ColDTTHist
	// The layers' columns (layer.go): the record's layer, then its keys (schema steps DuckDB
	// 16, ClickHouse 9).
	ColLayer
	ColHTTPMethod
	ColHTTPStatus
	ColHTTPHost
	ColHTTPPath
	ColDNSQName
	ColDNSQType
	ColDNSRCode
	ColTLSVersion
	ColTLSCipher
	ColTLSNotAfter
	ColTLSIssuer
	ColClientASPath
	ColServerASPath
	ColClientCommunities
	ColServerCommunities
	// NumColumns is the number of columns, the length of an array indexed by Column.
	NumColumns
)

// Kind is the type of a column's values.
type Kind int

// Column kinds. An address is stored as the two 64-bit halves of its 16-byte form (columns
// <name>_hi and <name>_lo), IPv4 mapped as ::ffff:a.b.c.d, so CIDR filters are range
// comparisons and keys sort by address.
const (
	KindInt64 Kind = iota
	KindUint8
	KindUint16
	KindUint32
	KindUint64
	KindString
	// KindHist is a histogram of one time metric (Timing.Buckets), an array of unsigned 64-bit
	// entries (hist.go; DuckDB UBIGINT[], ClickHouse Array(UInt64)), empty without samples.
	KindHist
	// KindUint32s and KindStrings are lists (DuckDB UINTEGER[] and VARCHAR[], ClickHouse
	// Array(UInt32) and Array(String)), empty when unknown: a route's AS path and its
	// communities. A query groups by a list's text (ListText) and a condition on one holds when
	// the list has the value (Dialect.Has).
	KindUint32s
	KindStrings
	KindAddr
)

// columnDesc describes one column: its name in SQL, its kind, and how a Record holds it.
type columnDesc struct {
	name string
	kind Kind
	// num returns the value of a number column in r as a uint64 (an int64's two's complement),
	// str that of a string column, addr that of an address column: each column has the one of
	// its kind.
	num  func(r *Record) uint64
	str  func(r *Record) string
	addr func(r *Record) netip.Addr
	hist func(r *Record) *Timing
	// uints and strs are the values of a list column (KindUint32s, KindStrings).
	uints func(r *Record) []uint32
	strs  func(r *Record) []string
}

// columns describes every column, in table order: NumColumns rows, then any a test build added
// (AddColumn).
var columns = []columnDesc{
	ColTime:          {name: "time", kind: KindInt64, num: func(r *Record) uint64 { return uint64(r.Time) }},
	ColProtocol:      {name: "protocol", kind: KindUint8, num: func(r *Record) uint64 { return uint64(r.Protocol) }},
	ColApplication:   {name: "application", kind: KindString, str: func(r *Record) string { return r.Application }},
	ColClientIP:      {name: "client_ip", kind: KindAddr, addr: func(r *Record) netip.Addr { return r.Client.IP }},
	ColClientPort:    {name: "client_port", kind: KindUint16, num: func(r *Record) uint64 { return uint64(r.Client.Port) }},
	ColClientBytes:   {name: "client_bytes", kind: KindUint64, num: func(r *Record) uint64 { return r.Client.Bytes }},
	ColClientPackets: {name: "client_packets", kind: KindUint64, num: func(r *Record) uint64 { return r.Client.Packets }},
	ColServerIP:      {name: "server_ip", kind: KindAddr, addr: func(r *Record) netip.Addr { return r.Server.IP }},
	ColServerPort:    {name: "server_port", kind: KindUint16, num: func(r *Record) uint64 { return uint64(r.Server.Port) }},
	ColServerBytes:   {name: "server_bytes", kind: KindUint64, num: func(r *Record) uint64 { return r.Server.Bytes }},
	ColServerPackets: {name: "server_packets", kind: KindUint64, num: func(r *Record) uint64 { return r.Server.Packets }},
	// The address of the device that exported the record (halves 0, 0 when it has none: the
	// unspecified address :: is no exporter's) and its interfaces (0: unknown).
	ColExporter: {name: "exporter", kind: KindAddr, addr: func(r *Record) netip.Addr { return r.Exporter }},
	ColInIf:     {name: "in_if", kind: KindUint32, num: func(r *Record) uint64 { return uint64(r.InIf) }},
	ColOutIf:    {name: "out_if", kind: KindUint32, num: func(r *Record) uint64 { return uint64(r.OutIf) }},
	// The capture probe's measures (0 in records without): times as sums of microseconds
	// (*_us) beside their sample counts, so that groups average them exactly.
	ColClientRTT:         {name: "client_rtt_us", kind: KindUint64, num: func(r *Record) uint64 { return r.Client.RTT.Sum }},
	ColClientRTTSamples:  {name: "client_rtt_samples", kind: KindUint64, num: func(r *Record) uint64 { return r.Client.RTT.Samples }},
	ColClientRetrans:     {name: "client_retrans", kind: KindUint64, num: func(r *Record) uint64 { return r.Client.Retrans }},
	ColClientZeroWindows: {name: "client_zero_windows", kind: KindUint64, num: func(r *Record) uint64 { return r.Client.ZeroWindows }},
	ColServerRTT:         {name: "server_rtt_us", kind: KindUint64, num: func(r *Record) uint64 { return r.Server.RTT.Sum }},
	ColServerRTTSamples:  {name: "server_rtt_samples", kind: KindUint64, num: func(r *Record) uint64 { return r.Server.RTT.Samples }},
	ColServerRetrans:     {name: "server_retrans", kind: KindUint64, num: func(r *Record) uint64 { return r.Server.Retrans }},
	ColServerZeroWindows: {name: "server_zero_windows", kind: KindUint64, num: func(r *Record) uint64 { return r.Server.ZeroWindows }},
	ColCT:                {name: "ct_us", kind: KindUint64, num: func(r *Record) uint64 { return r.CT.Sum }},
	ColCTSamples:         {name: "ct_samples", kind: KindUint64, num: func(r *Record) uint64 { return r.CT.Samples }},
	ColSRT:               {name: "srt_us", kind: KindUint64, num: func(r *Record) uint64 { return r.SRT.Sum }},
	ColSRTSamples:        {name: "srt_samples", kind: KindUint64, num: func(r *Record) uint64 { return r.SRT.Samples }},
	ColDTT:               {name: "dtt_us", kind: KindUint64, num: func(r *Record) uint64 { return r.DTT.Sum }},
	ColDTTSamples:        {name: "dtt_samples", kind: KindUint64, num: func(r *Record) uint64 { return r.DTT.Samples }},
	ColResets:            {name: "resets", kind: KindUint64, num: func(r *Record) uint64 { return r.Resets }},
	ColServerName:        {name: "server_name", kind: KindString, str: func(r *Record) string { return r.ServerName }},
	// The context the service resolved as it stored the record (package netctx; "" and 0
	// when unknown, and in the rows of files of earlier versions).
	ColClientZone:    {name: "client_zone", kind: KindString, str: func(r *Record) string { return r.Client.Zone }},
	ColServerZone:    {name: "server_zone", kind: KindString, str: func(r *Record) string { return r.Server.Zone }},
	ColClientASN:     {name: "client_asn", kind: KindUint32, num: func(r *Record) uint64 { return uint64(r.Client.ASN) }},
	ColClientASName:  {name: "client_as_name", kind: KindString, str: func(r *Record) string { return r.Client.ASName }},
	ColServerASN:     {name: "server_asn", kind: KindUint32, num: func(r *Record) uint64 { return uint64(r.Server.ASN) }},
	ColServerASName:  {name: "server_as_name", kind: KindString, str: func(r *Record) string { return r.Server.ASName }},
	ColClientCountry: {name: "client_country", kind: KindString, str: func(r *Record) string { return r.Client.Country }},
	ColServerCountry: {name: "server_country", kind: KindString, str: func(r *Record) string { return r.Server.Country }},
	ColExporterName:  {name: "exporter_name", kind: KindString, str: func(r *Record) string { return r.ExporterName }},
	ColInIfName:      {name: "in_if_name", kind: KindString, str: func(r *Record) string { return r.InIfName }},
	ColInIfAlias:     {name: "in_if_alias", kind: KindString, str: func(r *Record) string { return r.InIfAlias }},
	ColOutIfName:     {name: "out_if_name", kind: KindString, str: func(r *Record) string { return r.OutIfName }},
	ColOutIfAlias:    {name: "out_if_alias", kind: KindString, str: func(r *Record) string { return r.OutIfAlias }},
	// The histograms of the times (hist.go), for percentiles.
	ColClientRTTHist: {name: "client_rtt_hist", kind: KindHist, hist: func(r *Record) *Timing { return &r.Client.RTT }},
	ColServerRTTHist: {name: "server_rtt_hist", kind: KindHist, hist: func(r *Record) *Timing { return &r.Server.RTT }},
	ColCTHist:        {name: "ct_hist", kind: KindHist, hist: func(r *Record) *Timing { return &r.CT }},
	ColSRTHist:       {name: "srt_hist", kind: KindHist, hist: func(r *Record) *Timing { return &r.SRT }},
	ColDTTHist:       {name: "dtt_hist", kind: KindHist, hist: func(r *Record) *Timing { return &r.DTT }},
	// The layer of the record (0: the transport) and its keys, zero in records of other layers.
	ColLayer:       {name: "layer", kind: KindUint8, num: func(r *Record) uint64 { return uint64(r.Layer) }},
	ColHTTPMethod:  {name: "http_method", kind: KindString, str: func(r *Record) string { return r.HTTP.Method }},
	ColHTTPStatus:  {name: "http_status", kind: KindUint16, num: func(r *Record) uint64 { return uint64(r.HTTP.Status) }},
	ColHTTPHost:    {name: "http_host", kind: KindString, str: func(r *Record) string { return r.HTTP.Host }},
	ColHTTPPath:    {name: "http_path", kind: KindString, str: func(r *Record) string { return r.HTTP.Path }},
	ColDNSQName:    {name: "dns_qname", kind: KindString, str: func(r *Record) string { return r.DNS.QName }},
	ColDNSQType:    {name: "dns_qtype", kind: KindUint16, num: func(r *Record) uint64 { return uint64(r.DNS.QType) }},
	ColDNSRCode:    {name: "dns_rcode", kind: KindUint16, num: func(r *Record) uint64 { return uint64(r.DNS.RCode) }},
	ColTLSVersion:  {name: "tls_version", kind: KindUint16, num: func(r *Record) uint64 { return uint64(r.TLS.Version) }},
	ColTLSCipher:   {name: "tls_cipher", kind: KindUint16, num: func(r *Record) uint64 { return uint64(r.TLS.Cipher) }},
	ColTLSNotAfter: {name: "tls_not_after", kind: KindInt64, num: func(r *Record) uint64 { return uint64(r.TLS.NotAfter) }},
	ColTLSIssuer:   {name: "tls_issuer", kind: KindString, str: func(r *Record) string { return r.TLS.Issuer }},
	// The route covering each side's address (package bgp, through inlet/enrich.go): its AS
	// path and communities, empty when no route covers it or the service has no BGP.
	ColClientASPath:      {name: "client_as_path", kind: KindUint32s, uints: func(r *Record) []uint32 { return r.Client.ASPath }},
	ColServerASPath:      {name: "server_as_path", kind: KindUint32s, uints: func(r *Record) []uint32 { return r.Server.ASPath }},
	ColClientCommunities: {name: "client_communities", kind: KindStrings, strs: func(r *Record) []string { return r.Client.Communities }},
	ColServerCommunities: {name: "server_communities", kind: KindStrings, strs: func(r *Record) []string { return r.Server.Communities }},
}

// ColumnCount returns how many columns the records table has: NumColumns, and any that a test
// build added (AddColumn). Stores make their tables, inserts and migrations from these.
func ColumnCount() Column { return Column(len(columns)) }

// AddColumn adds a number or string column named name, of kind k, whose value in a record num
// (or str, for KindString) returns, after every other, and returns it: for a test build, which
// adds a key over a column the records do not have, before it opens a store (each engine then
// adds the column to a store of the columns before, as a schema step of its own). A column of
// the program is a row of columns instead, with its constant. AddColumn panics on a name
// already taken, a kind it does not take, or past maxAdded columns added. An added column has
// no bit in the masks of columns (RowBuilder.Omit, Filled: 1 << c is 0 past 63), which hold
// the program's columns alone: it is always appended.
func AddColumn(name string, k Kind, num func(*Record) uint64, str func(*Record) string) Column {
	if names, _ := SQLColumns(); slices.Contains(names, name) {
		panic("records: AddColumn: a column is named " + name)
	}
	if k == KindAddr || k == KindHist || (k == KindString) != (str != nil) || (k == KindString) == (num != nil) {
		panic("records: AddColumn: a column of kind number or string, with the accessor of its kind")
	}
	if len(columns) >= int(NumColumns)+maxAdded {
		panic("records: AddColumn: " + strconv.Itoa(maxAdded) + " columns added at most")
	}
	columns = append(columns, columnDesc{name: name, kind: k, num: num, str: str})
	return Column(len(columns) - 1)
}

// Name returns the column's name ("client_ip"); an address column is stored as Name()+"_hi"
// and Name()+"_lo".
func (c Column) Name() string { return columns[c].name }

// ColumnRange returns the columns first to last, in table order: what a released schema step added,
// frozen by their constants (the columns are append only).
func ColumnRange(first, last Column) []Column {
	var out []Column
	for c := first; c <= last; c++ {
		out = append(out, c)
	}
	return out
}

// Kind returns the type of the column's values.
func (c Column) Kind() Kind { return columns[c].kind }

// Context reports whether c is of the context the service resolves as it stores a record
// (zones, autonomous systems, countries, exporter and interface names: ColClientZone to
// ColOutIfAlias). A store may keep those apart from the records, as DuckDB does
// (Dialect.ContextFrom, RowBuilder.OmitContext): a context changes far less often than
// records arrive.
func (c Column) Context() bool { return c >= ColClientZone && c <= ColOutIfAlias }

// Of returns c's value in r: Lo for a number column, Str for a string column and a list's
// text (ListText), Hi and Lo for an address column's halves; the zero Value for a histogram
// column.
func (c Column) Of(r *Record) Value {
	d := &columns[c]
	switch d.kind {
	case KindUint32s, KindStrings:
		return Value{Str: c.ListText(r)}
	case KindAddr:
		hi, lo := Halves(d.addr(r))
		return Value{Hi: hi, Lo: lo}
	case KindString:
		return Value{Str: d.str(r)}
	case KindHist:
		return Value{}
	}
	return Value{Lo: d.num(r)}
}

// ContextMask has the bit (1 << c) of every context column (Column.Context).
const ContextMask = 1<<(ColOutIfAlias+1) - 1<<ColClientZone

// A column's bit fits a uint64 (RowBuilder.Omit).
var _ [64 - NumColumns]struct{}

// Filled returns the bits among cols (1 << c) of the columns that some record of recs fills:
// a number not 0, a string not empty, an address not the zero one, a histogram with samples.
func Filled(recs []Record, cols uint64) uint64 {
	var filled uint64
	for i := range recs {
		left := cols &^ filled
		if left == 0 {
			break
		}
		for c := range ColumnCount() {
			if left&(1<<c) == 0 {
				continue
			}
			d := &columns[c]
			var set bool
			switch d.kind {
			case KindHist:
				set = d.hist(&recs[i]).Samples > 0
			case KindString:
				set = d.str(&recs[i]) != ""
			case KindAddr:
				set = d.addr(&recs[i]).IsValid()
			case KindUint32s:
				set = len(d.uints(&recs[i])) > 0
			case KindStrings:
				set = len(d.strs(&recs[i])) > 0
			default:
				set = d.num(&recs[i]) != 0
			}
			if set {
				filled |= 1 << c
			}
		}
	}
	return filled
}

// SQLNames returns the SQL columns that hold c: two for an address.
func (c Column) SQLNames() []string {
	d := columns[c]
	if d.kind == KindAddr {
		return []string{d.name + "_hi", d.name + "_lo"}
	}
	return []string{d.name}
}

// RowBuilder makes the rows that bulk inserts take (DuckDB's appender, ClickHouse's batch):
// each SQL column's value of a record, in table order, boxed as a driver.Value of its kind's
// type (an address as its two halves, uint64). A box is an allocation, which made most of the
// appender's cost: a column whose value repeats the previous row's (the time, the protocol,
// the application, a server's address and port, the exporter, in most batches) reuses its box.
// Those taking the rows copy the values out, so reusing a box is safe.
type RowBuilder struct {
	// Omit leaves the columns whose bit (1 << c) it has out of the rows: for a store that
	// keeps the context apart (ContextMask), or leaves columns no record of a batch fills to
	// their defaults (UsedHists).
	Omit uint64

	nums  [maxSQLColumns]uint64
	strs  [maxSQLColumns]string
	boxes [maxSQLColumns]driver.Value
}

// NumSQLColumns is how many SQL columns the table has: an address takes two.
const NumSQLColumns = int(NumColumns) + 3

// maxAdded is how many columns AddColumn adds at most, and maxSQLColumns how many SQL columns
// the table may have with them.
const (
	maxAdded      = 16
	maxSQLColumns = NumSQLColumns + maxAdded
)

// AppendRow appends the SQL column values of r, in table order, to dst.
func (b *RowBuilder) AppendRow(dst []driver.Value, r *Record) []driver.Value {
	i := 0
	for c := range columns {
		d := &columns[c]
		if b.Omit&(1<<c) != 0 {
			i++
			continue
		}
		switch d.kind {
		case KindAddr:
			hi, lo := Halves(d.addr(r))
			dst = append(dst, b.num(i, KindUint64, hi), b.num(i+1, KindUint64, lo))
			i += 2
			continue
		case KindString:
			if v := d.str(r); b.boxes[i] == nil || v != b.strs[i] {
				b.strs[i], b.boxes[i] = v, v
			}
			dst = append(dst, b.boxes[i])
		case KindHist:
			dst = append(dst, HistEntries(d.hist(r)))
		case KindUint32s:
			dst = append(dst, nonNil(d.uints(r), noUints))
		case KindStrings:
			dst = append(dst, nonNil(d.strs(r), noStrings))
		default:
			dst = append(dst, b.num(i, d.kind, d.num(r)))
		}
		i++
	}
	return dst
}

// num returns the box of SQL column i's value v, of kind k: the previous row's when v is its.
func (b *RowBuilder) num(i int, k Kind, v uint64) driver.Value {
	if b.boxes[i] != nil && b.nums[i] == v {
		return b.boxes[i]
	}
	box := k.Box(v)
	b.nums[i], b.boxes[i] = v, box
	return box
}

// Box returns v, the value of a number column of kind k as Column.Of gives it (Value.Lo), as
// a driver.Value of k's type (int64, uint8, uint16, uint32 or uint64), as inserts take it.
func (k Kind) Box(v uint64) driver.Value {
	switch k {
	case KindInt64:
		return int64(v)
	case KindUint8:
		return uint8(v)
	case KindUint16:
		return uint16(v)
	case KindUint32:
		return uint32(v)
	}
	return v
}

// HistEntries returns the entries of the column that keeps t's histogram (Timing.Buckets):
// one shared empty slice without samples, so that most records allocate nothing.
func HistEntries(t *Timing) []uint64 {
	if t.Samples == 0 {
		return noEntries
	}
	return EncodeHist(nil, t.Buckets())
}

var noEntries = []uint64{}

// noUints and noStrings are the empty lists a row holds for a nil one, which the drivers
// would take for NULL.
var (
	noUints   = []uint32{}
	noStrings = []string{}
)

func nonNil[T any](s, empty []T) []T {
	if s == nil {
		return empty
	}
	return s
}

// ListSep separates a list's values in its text (ListText).
const ListSep = " "

// ListText returns the text of list column c's value in r, as a query groups by it: its
// values in order separated by ListSep ("64500 64501", "65000:100 65000:100:1"), "" when
// empty. Neither AS numbers nor communities hold a space, so the text tells the list.
func (c Column) ListText(r *Record) string {
	d := &columns[c]
	if d.kind == KindStrings {
		return strings.Join(d.strs(r), ListSep)
	}
	var b []byte
	for i, n := range d.uints(r) {
		if i > 0 {
			b = append(b, ListSep...)
		}
		b = strconv.AppendUint(b, uint64(n), 10)
	}
	return string(b)
}

// RouteColumns are the columns of the routes covering the sides' addresses (Place.ASPath,
// Place.Communities), which DuckDB step 17 and ClickHouse step 10 added.
var RouteColumns = ColumnRange(ColClientASPath, ColServerCommunities)

// List reports whether c is a list column (KindUint32s, KindStrings).
func (c Column) List() bool { k := c.Kind(); return k == KindUint32s || k == KindStrings }

// SQLColumns returns every SQL column of the table in order, with its kind (an address's
// halves are KindUint64).
func SQLColumns() (names []string, kinds []Kind) {
	for c := range ColumnCount() {
		for _, n := range c.SQLNames() {
			names = append(names, n)
			k := columns[c].kind
			if k == KindAddr {
				k = KindUint64
			}
			kinds = append(kinds, k)
		}
	}
	return names, kinds
}
