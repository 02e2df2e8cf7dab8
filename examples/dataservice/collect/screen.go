package collect

import (
	"encoding/binary"
	"errors"
)

// The IDs of template sets: NetFlow v9 templates and options templates, IPFIX templates and
// options templates. Data sets have IDs from 256.
const (
	setV9Template    = 0
	setV9Options     = 1
	setIPFIXTemplate = 2
	setIPFIXOptions  = 3
	minTemplateID    = 256
)

// minRecordBytes is the smallest data record a template may describe: the heap goflow2 takes
// for a record, beside its fields, is about 70 bytes (100 for options data), so smaller records
// would cost more heap a byte. A flow record holds two addresses (8 bytes at least), an options
// record a scope and a value.
const minRecordBytes = 4

// errTemplateTruncated is the error of a template set whose records run past its end (goflow2
// refuses such a set too, but only after allocating room for every field its header claims).
var errTemplateTruncated = errors.New("template record longer than its set")

// isTemplateSet tells whether a set of a datagram of version holds templates.
func isTemplateSet(version, id uint16) bool {
	if version == 9 {
		return id == setV9Template || id == setV9Options
	}
	return id == setIPFIXTemplate || id == setIPFIXOptions
}

// screenTemplates checks the template records of one template set (set: its header and body,
// as received) before goflow2 decodes them, and returns the set to hand goflow2: set itself
// when every record passes, else a copy holding only those that pass (nil when none does).
//
// A record is refused, and counted in the exporter, when it has more than
// Limits.MaxFieldsPerTemplate fields, an ID below 256, data records smaller than
// minRecordBytes, or more fields than the bytes of its smallest data record: goflow2 allocates
// about 48 bytes of heap a field it decodes (the field and its value boxed in an interface), so
// a template of 4,095 zero-length fields and one 1-byte field made every byte of a later data
// set a 4,096-field record (190 KB). With at most one field a byte and four bytes a record, a
// data set decodes into at most one field and a quarter of a record a byte it holds.
//
// An IPFIX record without fields withdraws its template (RFC 7011, section 8.1), or every
// template of its kind when its ID is the set's; the rest of a set that cannot hold another
// record is padding. A record longer than what is left of its set is an error.
func (s *templateStore) screenTemplates(version uint16, domain uint32, set []byte) ([]byte, error) {
	setID := binary.BigEndian.Uint16(set)
	body := set[4:]
	var kept []byte
	changed := false
	for i := 0; len(body)-i >= 4; {
		id, fields, size, n, ok := templateShape(setID, body[i:])
		if !ok {
			return nil, errTemplateTruncated
		}
		rec := body[i : i+n]
		i += n
		switch {
		case fields == 0 && version == 10 && (id >= minTemplateID || id == setID):
			s.withdraw(domain, setID, id)
			changed = true
		case fields == 0 && id < minTemplateID:
			changed = true // padding
			i = len(body)
		case id < minTemplateID || fields > s.limits.MaxFieldsPerTemplate || size < minRecordBytes || fields > size:
			s.ex.refusedTpl.Add(1)
			changed = true
		default:
			kept = append(kept, rec...)
		}
	}
	if !changed {
		return set, nil
	}
	if len(kept) == 0 {
		return nil, nil
	}
	out := binary.BigEndian.AppendUint16(nil, setID)
	out = binary.BigEndian.AppendUint16(out, uint16(4+len(kept)))
	return append(out, kept...), nil
}

// templateShape reads the template record at the start of b, of a set of kind setID, as goflow2
// would: its ID, its number of fields, the bytes of its smallest data record (fixed lengths, and
// the length byte of each variable-length field) and its own length in b. ok is false when b is
// shorter than the record.
func templateShape(setID uint16, b []byte) (id uint16, fields, size, n int, ok bool) {
	u16 := func(i int) int { return int(binary.BigEndian.Uint16(b[i:])) }
	id = uint16(u16(0))
	switch setID {
	case setV9Template, setIPFIXTemplate:
		n, fields = 4, u16(2)
	case setV9Options:
		if len(b) < 6 {
			return id, 0, 0, 0, false
		}
		n, fields = 6, u16(2)/4+u16(4)/4 // scope and option lengths in bytes
	case setIPFIXOptions:
		if fields = u16(2); fields == 0 {
			return id, 0, 0, 4, true // a withdrawal has no scope count
		}
		if len(b) < 6 || u16(4) > fields {
			return id, 0, 0, 0, false
		}
		n = 6
	}
	enterprise := setID == setIPFIXTemplate || setID == setIPFIXOptions
	for range fields {
		if len(b)-n < 4 {
			return id, 0, 0, 0, false
		}
		typ, length := u16(n), u16(n+2)
		n += 4
		if enterprise && typ&0x8000 != 0 {
			if n += 4; n > len(b) {
				return id, 0, 0, 0, false
			}
		}
		if length == 0xffff {
			size++ // a variable-length field takes at least its length byte
		} else {
			size += length
		}
	}
	return id, fields, size, n, true
}
