package capture

import "errors"

// Frame is one captured frame, as a Source delivers it.
type Frame struct {
	// Data is the frame as captured, valid until the next call of Next. A frame without
	// Data is a tick: no packet arrived, and Time is the current time, so that the table
	// can close time slices while the link is quiet.
	Data []byte
	// Time is the capture time, Unix nanoseconds.
	Time int64
	// Link is the frame's link type.
	Link LinkType
	// Len is the frame's length on the wire (pcap's original length, AF_PACKET's tp_len):
	// more than len(Data) when the snap length cut the frame.
	Len int
}

// Source delivers captured frames: a capture file (OpenFile) or a live interface
// (OpenInterface, Linux). One goroutine uses it, except for Stats, which a live source
// allows from any goroutine.
type Source interface {
	// Next reads the next frame into f; io.EOF after the last one of a file, ErrClosed once
	// Close was called.
	Next(f *Frame) error
	// Stats says what the source dropped.
	Stats() SourceStats
	// Close releases the source. Call it from the goroutine that calls Next (Probe.Run
	// does), since the frames point into the source's memory.
	Close() error
}

// SourceStats counts what a source saw and dropped.
type SourceStats struct {
	// Packets is what the source received (for a live source, as the kernel counts them).
	Packets uint64
	// Drops is what the kernel's ring dropped because the probe did not read fast enough,
	// or frames of a file too large to read (MaxFrame).
	Drops uint64
}

// MaxFrame is the largest frame a source reads (256 KiB, as tcpdump's largest snap length);
// a capture file's larger record is skipped and counted as a drop.
const MaxFrame = 256 << 10

// ErrClosed is returned by Next after Close.
var ErrClosed = errors.New("capture: source closed")
