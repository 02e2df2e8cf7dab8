package queue

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"

	"github.com/fnapi/fnapi/examples/dataservice/histogram"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// codecVersion is the first byte of every encoded batch. A consumer refuses (dead-letters) a
// version it does not know: upgrade the consumers before the publishers. Version 2 adds each
// side's route (AS path, communities) and the record's layer with its keys; Decode still
// reads version 1, whose records have neither (the publishers of that version lost them).
const codecVersion = 2

// MaxBatchRecords is the most records one message may hold; Decode refuses more. Publishers
// send at most 8,192 (maxPart); the bound keeps what one message may cost a consumer once
// decoded (about 850 bytes a record) within some 56 MB, whatever NATS's max_payload.
const MaxBatchRecords = 1 << 16

// ErrEncoding is the error of Decode for bytes Encode did not write.
var ErrEncoding = errors.New("queue: bad batch encoding")

// Encode appends the encoding of recs to dst: the version, the number of records, then each
// record's fields in a fixed order, integers as varints (the time as the difference from the
// previous record's), addresses as their length and bytes, strings as their length and
// bytes, a histogram as a 0 byte when empty, else as its length in two bytes (the high bit
// set; at most 640 buckets take less than 2^15 bytes) and what histogram.AppendBinary writes,
// a list as its length and items, the layer as a byte and the keys of that layer alone (the
// others are zero). A flow record without context takes about 65 bytes.
func Encode(dst []byte, recs []records.Record) []byte {
	dst = append(dst, codecVersion)
	dst = binary.AppendUvarint(dst, uint64(len(recs)))
	prev := int64(0)
	for i := range recs {
		r := &recs[i]
		dst = binary.AppendVarint(dst, r.Time-prev)
		prev = r.Time
		dst = append(dst, r.Protocol)
		dst = appendString(dst, r.Application)
		dst = appendEndpoint(dst, &r.Client)
		dst = appendEndpoint(dst, &r.Server)
		dst = appendAddr(dst, r.Exporter)
		dst = binary.AppendUvarint(dst, uint64(r.InIf))
		dst = binary.AppendUvarint(dst, uint64(r.OutIf))
		dst = appendTiming(dst, &r.CT)
		dst = appendTiming(dst, &r.SRT)
		dst = appendTiming(dst, &r.DTT)
		dst = binary.AppendUvarint(dst, r.Resets)
		for _, s := range [...]string{r.ServerName, r.ExporterName, r.InIfName, r.InIfAlias, r.OutIfName, r.OutIfAlias} {
			dst = appendString(dst, s)
		}
		dst = appendRoute(dst, &r.Client.Place)
		dst = appendRoute(dst, &r.Server.Place)
		dst = appendLayer(dst, r)
	}
	return dst
}

// appendRoute appends p's AS path and communities (version 2).
func appendRoute(dst []byte, p *records.Place) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(p.ASPath)))
	for _, as := range p.ASPath {
		dst = binary.AppendUvarint(dst, uint64(as))
	}
	dst = binary.AppendUvarint(dst, uint64(len(p.Communities)))
	for _, c := range p.Communities {
		dst = appendString(dst, c)
	}
	return dst
}

// appendLayer appends r's layer and the keys of that layer (version 2).
func appendLayer(dst []byte, r *records.Record) []byte {
	dst = append(dst, byte(r.Layer))
	switch r.Layer {
	case records.LayerHTTP:
		h := &r.HTTP
		dst = appendString(dst, h.Method)
		dst = binary.AppendUvarint(dst, uint64(h.Status))
		dst = appendString(dst, h.Host)
		dst = appendString(dst, h.Path)
	case records.LayerDNS:
		d := &r.DNS
		dst = appendString(dst, d.QName)
		dst = binary.AppendUvarint(dst, uint64(d.QType))
		dst = binary.AppendUvarint(dst, uint64(d.RCode))
	case records.LayerTLS:
		t := &r.TLS
		dst = binary.AppendUvarint(dst, uint64(t.Version))
		dst = binary.AppendUvarint(dst, uint64(t.Cipher))
		dst = binary.AppendVarint(dst, t.NotAfter)
		dst = appendString(dst, t.Issuer)
	}
	return dst
}

func appendEndpoint(dst []byte, e *records.Endpoint) []byte {
	dst = appendAddr(dst, e.IP)
	dst = binary.AppendUvarint(dst, uint64(e.Port))
	dst = binary.AppendUvarint(dst, e.Bytes)
	dst = binary.AppendUvarint(dst, e.Packets)
	dst = appendTiming(dst, &e.RTT)
	dst = binary.AppendUvarint(dst, e.Retrans)
	dst = binary.AppendUvarint(dst, e.ZeroWindows)
	dst = appendString(dst, e.Zone)
	dst = binary.AppendUvarint(dst, uint64(e.ASN))
	dst = appendString(dst, e.ASName)
	return appendString(dst, e.Country)
}

// appendAddr appends a's length (0 for the zero Addr, 4 or 16) and bytes; a zone is dropped
// (records.Validate refuses addresses with one).
func appendAddr(dst []byte, a netip.Addr) []byte {
	switch {
	case !a.IsValid():
		return append(dst, 0)
	case a.Is4():
		b := a.As4()
		return append(append(dst, 4), b[:]...)
	}
	b := a.As16()
	return append(append(dst, 16), b[:]...)
}

func appendTiming(dst []byte, t *records.Timing) []byte {
	dst = binary.AppendUvarint(dst, t.Sum)
	dst = binary.AppendUvarint(dst, t.Samples)
	if t.Hist.Count() == 0 {
		return append(dst, 0)
	}
	n := len(dst)
	dst = append(dst, 0, 0) // the histogram's length, two bytes
	dst = t.Hist.AppendBinary(dst)
	binary.BigEndian.PutUint16(dst[n:], uint16(len(dst)-n-2)|0x8000)
	return dst
}

func appendString(dst []byte, s string) []byte {
	return append(binary.AppendUvarint(dst, uint64(len(s))), s...)
}

// Decode reads the records Encode wrote; the whole of b must be one encoding. It checks the
// encoding, not the records (the store validates them).
func Decode(b []byte) ([]records.Record, error) {
	d := decoder{b: b}
	v := d.byte()
	if d.err != nil {
		return nil, d.err
	}
	if v == 0 || v > codecVersion {
		return nil, fmt.Errorf("%w: version %d, this service reads 1 to %d", ErrEncoding, v, codecVersion)
	}
	n := d.uvarint()
	// Each record takes at least 30 bytes: refuse a count the bytes cannot hold before
	// allocating for it.
	if n > MaxBatchRecords || n > uint64(len(d.b))/30 {
		return nil, fmt.Errorf("%w: %d records in %d bytes", ErrEncoding, n, len(b))
	}
	recs := make([]records.Record, n)
	prev := int64(0)
	for i := range recs {
		r := &recs[i]
		r.Time = prev + d.varint()
		prev = r.Time
		r.Protocol = d.byte()
		r.Application = d.string()
		d.endpoint(&r.Client)
		d.endpoint(&r.Server)
		r.Exporter = d.addr()
		r.InIf = d.uint32()
		r.OutIf = d.uint32()
		d.timing(&r.CT)
		d.timing(&r.SRT)
		d.timing(&r.DTT)
		r.Resets = d.uvarint()
		for _, s := range [...]*string{&r.ServerName, &r.ExporterName, &r.InIfName, &r.InIfAlias, &r.OutIfName, &r.OutIfAlias} {
			*s = d.string()
		}
		if v >= 2 {
			d.route(&r.Client.Place)
			d.route(&r.Server.Place)
			d.layer(r)
		}
		if d.err != nil {
			return nil, fmt.Errorf("%w: record %d", d.err, i)
		}
	}
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("%w: %d bytes after the last record", ErrEncoding, len(d.b))
	}
	if d.err != nil {
		return nil, d.err
	}
	return recs, nil
}

// decoder reads an encoding; its first error sticks, and every read after it returns zero.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = ErrEncoding
	}
	d.b = nil
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) uvarint() uint64 {
	v, k := binary.Uvarint(d.b)
	if k <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[k:]
	return v
}

func (d *decoder) varint() int64 {
	v, k := binary.Varint(d.b)
	if k <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[k:]
	return v
}

func (d *decoder) uint32() uint32 {
	v := d.uvarint()
	if v > 1<<32-1 {
		d.fail()
	}
	return uint32(v)
}

func (d *decoder) bytes(n uint64) []byte {
	if n > uint64(len(d.b)) {
		d.fail()
		return nil
	}
	b := d.b[:n]
	d.b = d.b[n:]
	return b
}

func (d *decoder) string() string {
	n := d.uvarint()
	if n == 0 {
		return ""
	}
	return string(d.bytes(n))
}

func (d *decoder) addr() netip.Addr {
	switch n := d.byte(); n {
	case 0:
		return netip.Addr{}
	case 4:
		if b := d.bytes(4); b != nil {
			return netip.AddrFrom4([4]byte(b))
		}
	case 16:
		if b := d.bytes(16); b != nil {
			return netip.AddrFrom16([16]byte(b))
		}
	default:
		d.fail()
	}
	return netip.Addr{}
}

func (d *decoder) timing(t *records.Timing) {
	t.Sum = d.uvarint()
	t.Samples = d.uvarint()
	first := d.byte()
	if first == 0 || d.err != nil {
		return
	}
	second := d.byte()
	n := binary.BigEndian.Uint16([]byte{first, second})
	if n&0x8000 == 0 {
		d.fail()
		return
	}
	h, err := histogram.Decode(d.bytes(uint64(n &^ 0x8000)))
	if err != nil || h.Count() == 0 {
		d.fail()
		return
	}
	t.Hist = h
}

func (d *decoder) endpoint(e *records.Endpoint) {
	e.IP = d.addr()
	e.Port = d.uint16()
	e.Bytes = d.uvarint()
	e.Packets = d.uvarint()
	d.timing(&e.RTT)
	e.Retrans = d.uvarint()
	e.ZeroWindows = d.uvarint()
	e.Zone = d.string()
	e.ASN = d.uint32()
	e.ASName = d.string()
	e.Country = d.string()
}

// route reads what appendRoute wrote: at most records.MaxASPath ASes and
// records.MaxCommunities communities.
func (d *decoder) route(p *records.Place) {
	if n := d.count(records.MaxASPath); n > 0 {
		p.ASPath = make([]uint32, n)
		for i := range p.ASPath {
			p.ASPath[i] = d.uint32()
		}
	}
	if n := d.count(records.MaxCommunities); n > 0 {
		p.Communities = make([]string, n)
		for i := range p.Communities {
			p.Communities[i] = d.string()
		}
	}
}

// count reads a list's length, at most max and at most the bytes left (an item takes one
// at least).
func (d *decoder) count(max int) int {
	n := d.uvarint()
	if n > uint64(max) || n > uint64(len(d.b)) {
		d.fail()
		return 0
	}
	return int(n)
}

// layer reads what appendLayer wrote.
func (d *decoder) layer(r *records.Record) {
	r.Layer = records.Layer(d.byte())
	switch r.Layer {
	case records.LayerTransport:
	case records.LayerHTTP:
		h := &r.HTTP
		h.Method = d.string()
		h.Status = d.uint16()
		h.Host = d.string()
		h.Path = d.string()
	case records.LayerDNS:
		q := &r.DNS
		q.QName = d.string()
		q.QType = d.uint16()
		q.RCode = d.uint16()
	case records.LayerTLS:
		t := &r.TLS
		t.Version = d.uint16()
		t.Cipher = d.uint16()
		t.NotAfter = d.varint()
		t.Issuer = d.string()
	default:
		d.fail()
	}
}

func (d *decoder) uint16() uint16 {
	v := d.uvarint()
	if v > 1<<16-1 {
		d.fail()
	}
	return uint16(v)
}
