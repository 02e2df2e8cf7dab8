package capture

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// pcapng block types.
const (
	ngSectionHeader  = 0x0a0d0d0a
	ngInterface      = 1
	ngSimplePacket   = 3
	ngEnhancedPacket = 6
)

// maxNGBlock bounds a pcapng block that the reader holds in memory (packets and interface
// descriptions); larger blocks of other types are skipped unread.
const maxNGBlock = MaxFrame + 1024

// readNG reads pcapng blocks until the next packet (into f), or, with f nil, the section
// header only.
func (s *reader) readNG(f *Frame) error {
	for {
		h := s.hdr[:8]
		if _, err := io.ReadFull(s.r, h); err != nil {
			return eof(err)
		}
		typ := binary.LittleEndian.Uint32(h[:])
		if typ == ngSectionHeader {
			if err := s.readSectionHeader([8]byte(h)); err != nil {
				return err
			}
			if f == nil {
				return nil
			}
			continue
		}
		if s.order == nil {
			return ErrFormat
		}
		typ = s.order.Uint32(h[:])
		total := int64(s.order.Uint32(h[4:]))
		if total < 12 || total%4 != 0 {
			return fmt.Errorf("%w: block length %d", ErrFormat, total)
		}
		body := int(total - 8) // body and trailing length
		switch typ {
		case ngInterface, ngEnhancedPacket, ngSimplePacket:
		default:
			if _, err := s.r.Discard(body); err != nil {
				return eof(err)
			}
			continue
		}
		if body > maxNGBlock {
			s.stats.Drops++
			if _, err := s.r.Discard(body); err != nil {
				return eof(err)
			}
			continue
		}
		if err := s.fill(body); err != nil {
			return err
		}
		b := s.buf[:body-4]
		switch typ {
		case ngInterface:
			if err := s.readInterface(b); err != nil {
				return err
			}
		case ngEnhancedPacket:
			if len(b) < 20 {
				return fmt.Errorf("%w: short packet block", ErrFormat)
			}
			id := s.order.Uint32(b)
			n := int(s.order.Uint32(b[12:]))
			if int(id) >= len(s.ifaces) || n > len(b)-20 {
				return fmt.Errorf("%w: bad packet block", ErrFormat)
			}
			ifc := s.ifaces[id]
			ts := uint64(s.order.Uint32(b[4:]))<<32 | uint64(s.order.Uint32(b[8:]))
			s.stats.Packets++
			f.Data, f.Link = b[20:20+n], ifc.link
			f.Len = int(s.order.Uint32(b[16:]))
			f.Time = int64(float64(ts) * ifc.tick)
			if ifc.tick == 1000 { // the usual microseconds: exact
				f.Time = int64(ts) * 1000
			}
			return nil
		case ngSimplePacket: // no timestamp: taken as the previous packet's
			if len(b) < 4 || len(s.ifaces) == 0 {
				return fmt.Errorf("%w: bad simple packet block", ErrFormat)
			}
			f.Len = int(s.order.Uint32(b))
			n := min(f.Len, len(b)-4)
			s.stats.Packets++
			f.Data, f.Link = b[4:4+n], s.ifaces[0].link
			return nil
		}
	}
}

// readSectionHeader reads the rest of a section header block whose first 8 bytes (type and
// total length, in a byte order not known yet) are h.
func (s *reader) readSectionHeader(h [8]byte) error {
	m := s.hdr[8:12]
	if _, err := io.ReadFull(s.r, m); err != nil {
		return ErrFormat
	}
	switch binary.LittleEndian.Uint32(m) {
	case 0x1a2b3c4d:
		s.order = binary.LittleEndian
	case 0x4d3c2b1a:
		s.order = binary.BigEndian
	default:
		return ErrFormat
	}
	total := int(s.order.Uint32(h[4:]))
	if total < 28 || total%4 != 0 {
		return ErrFormat
	}
	if _, err := s.r.Discard(total - 12); err != nil {
		return ErrFormat
	}
	s.ifaces = s.ifaces[:0] // interface ids restart in each section
	return nil
}

func (s *reader) readInterface(b []byte) error {
	if len(b) < 8 {
		return fmt.Errorf("%w: short interface block", ErrFormat)
	}
	if len(s.ifaces) >= 1024 {
		return fmt.Errorf("%w: more than 1024 interfaces", ErrFormat)
	}
	ifc := ngIface{link: LinkType(s.order.Uint16(b)), tick: 1000}
	for o := b[8:]; len(o) >= 4; {
		code, n := s.order.Uint16(o), int(s.order.Uint16(o[2:]))
		o = o[4:]
		if code == 0 || n > len(o) {
			break
		}
		if code == 9 && n >= 1 { // if_tsresol
			r := o[0]
			if r&0x80 != 0 {
				ifc.tick = 1e9 / math.Pow(2, float64(r&0x7f))
			} else {
				ifc.tick = 1e9 / math.Pow(10, float64(r))
			}
		}
		o = o[min((n+3)&^3, len(o)):]
	}
	s.ifaces = append(s.ifaces, ifc)
	return nil
}
