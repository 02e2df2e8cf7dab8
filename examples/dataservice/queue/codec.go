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
// version it does not know: upgrade the consumers before the publishers.
const codecVersion = 1

// MaxBatchRecords is the most records one message may hold; Decode refuses more.
const MaxBatchRecords = 1 << 20

// ErrEncoding is the error of Decode for bytes Encode did not write.
var ErrEncoding = errors.New("queue: bad batch encoding")

// Encode appends the encoding of recs to dst: the version, the number of records, then each
// record's fields in a fixed order, integers as varints (the time as the difference from the
// previous record's), addresses as their length and bytes, strings as their length and
// bytes, a histogram as a 0 byte when empty, else as its length in two bytes (the high bit
// set; at most 640 buckets take less than 2^15 bytes) and what histogram.AppendBinary writes.
// A flow record without context takes about 60 bytes.
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
	if v := d.byte(); v != codecVersion {
		if d.err == nil {
			return nil, fmt.Errorf("%w: version %d, this service reads %d", ErrEncoding, v, codecVersion)
		}
		return nil, d.err
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
	port := d.uvarint()
	if port > 1<<16-1 {
		d.fail()
	}
	e.Port = uint16(port)
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
