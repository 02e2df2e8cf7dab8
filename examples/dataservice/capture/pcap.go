package capture

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrFormat is returned for a file that is neither pcap nor pcapng, or that is corrupt.
var ErrFormat = errors.New("capture: not a pcap or pcapng file")

// OpenFile opens a pcap or pcapng capture file (told apart by their first bytes). Its frames
// are read as fast as the caller takes them, then Next returns io.EOF.
func OpenFile(name string) (Source, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	s, err := newReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &fileSource{reader: *s, f: f}, nil
}

type fileSource struct {
	reader
	f *os.File
}

func (s *fileSource) Close() error {
	s.closed = true
	return s.f.Close()
}

// NewReader reads a pcap or pcapng stream; its Close does nothing.
func NewReader(r io.Reader) (Source, error) {
	s, err := newReader(r)
	if err != nil {
		return nil, err
	}
	return s, nil
}

func newReader(r io.Reader) (*reader, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, err := br.Peek(4)
	if err != nil {
		return nil, ErrFormat
	}
	s := &reader{r: br}
	switch binary.LittleEndian.Uint32(head) {
	case 0x0a0d0d0a:
		s.ng = true
		err = s.readNG(nil)
	default:
		err = s.readPcapHeader()
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// reader reads pcap (Libpcap's classic format) or pcapng.
type reader struct {
	r      *bufio.Reader
	buf    []byte
	order  binary.ByteOrder
	ng     bool
	closed bool
	// pcap: the file's link type and time unit (ns per tick of the fraction field).
	link     LinkType
	fracUnit int64
	// pcapng: each interface's link type and nanoseconds per timestamp unit.
	ifaces []ngIface
	stats  SourceStats
	hdr    [16]byte // record and block headers, read here so as not to allocate
}

type ngIface struct {
	link LinkType
	tick float64 // nanoseconds per timestamp unit
}

func (s *reader) Stats() SourceStats { return s.stats }
func (s *reader) Close() error       { s.closed = true; return nil }

func (s *reader) readPcapHeader() error {
	var h [24]byte
	if _, err := io.ReadFull(s.r, h[:]); err != nil {
		return ErrFormat
	}
	switch binary.LittleEndian.Uint32(h[:]) {
	case 0xa1b2c3d4:
		s.order, s.fracUnit = binary.LittleEndian, 1000
	case 0xa1b23c4d:
		s.order, s.fracUnit = binary.LittleEndian, 1
	case 0xd4c3b2a1:
		s.order, s.fracUnit = binary.BigEndian, 1000
	case 0x4d3cb2a1:
		s.order, s.fracUnit = binary.BigEndian, 1
	default:
		return ErrFormat
	}
	s.link = LinkType(s.order.Uint32(h[20:]) & 0xffff)
	return nil
}

// Next implements Source.
func (s *reader) Next(f *Frame) error {
	if s.closed {
		return ErrClosed
	}
	if s.ng {
		return s.readNG(f)
	}
	for {
		h := s.hdr[:]
		if _, err := io.ReadFull(s.r, h); err != nil {
			return eof(err)
		}
		n := int64(s.order.Uint32(h[8:]))
		if n > MaxFrame {
			s.stats.Drops++
			if _, err := s.r.Discard(int(n)); err != nil {
				return eof(err)
			}
			continue
		}
		if err := s.fill(int(n)); err != nil {
			return err
		}
		s.stats.Packets++
		f.Data = s.buf
		f.Len = int(s.order.Uint32(h[12:]))
		f.Link = s.link
		f.Time = int64(s.order.Uint32(h[:]))*1e9 + int64(s.order.Uint32(h[4:]))*s.fracUnit
		return nil
	}
}

// fill reads n bytes into s.buf.
func (s *reader) fill(n int) error {
	if cap(s.buf) < n {
		s.buf = make([]byte, n, max(n, 2048))
	}
	s.buf = s.buf[:n]
	if _, err := io.ReadFull(s.r, s.buf); err != nil {
		return eof(err)
	}
	return nil
}

// eof turns the end of a file into io.EOF, and a file cut inside a record into ErrFormat.
func eof(err error) error {
	if err == io.EOF {
		return io.EOF
	}
	if err == io.ErrUnexpectedEOF {
		return fmt.Errorf("%w: cut inside a record", ErrFormat)
	}
	return err
}
