package capture

import (
	"context"
	"errors"
	"io"
)

// DecodeStats counts the frames a probe could not track.
type DecodeStats struct {
	// NotIP counts frames that are not IP (ARP, LLDP, ...); Malformed those cut short or
	// malformed; Filtered those the filter refused (files only: the kernel filters live
	// captures before they are counted).
	NotIP, Malformed, Filtered uint64
}

// Probe reads a Source, decodes its frames and feeds a Table.
type Probe struct {
	// Source is where the frames come from.
	Source Source
	// Table tracks the conversations.
	Table *Table
	// Filter, when set, keeps only the frames it matches (see CompileFilter). Live sources
	// have it applied by the kernel already (OpenInterface); for files the probe runs it.
	Filter *Filter
	// Stats counts what was not tracked; read it after Run returns.
	Stats DecodeStats
	// Progress, when set, is called on Run's goroutine every 4096 frames and at every tick
	// of a live source (at least every RingBlockTimeout), so that the caller can read the
	// table's Stats while the capture goes on (the table is not safe for concurrent use).
	Progress func()
}

// Run reads frames until the source ends (io.EOF: the table is then flushed and Run
// returns nil), fails, or ctx is done (noticed within a live source's RingBlockTimeout; Run
// returns ctx's error without flushing the table, so that the caller decides). The caller
// closes the source.
func (p *Probe) Run(ctx context.Context) error {
	var f Frame
	var pkt Packet
	for n := 0; ; n++ {
		if n%4096 == 0 || f.Data == nil {
			if err := ctx.Err(); err != nil {
				return err
			}
			if p.Progress != nil && n > 0 {
				p.Progress()
			}
		}
		err := p.Source.Next(&f)
		if err == io.EOF {
			p.Table.Flush()
			return nil
		}
		if err != nil {
			return err
		}
		if f.Data == nil {
			p.Table.Advance(f.Time)
			continue
		}
		if p.Filter != nil && !p.Filter.Match(f.Data) {
			p.Stats.Filtered++
			continue
		}
		pkt.Time, pkt.FrameLen = f.Time, f.Len
		switch err := Decode(f.Link, f.Data, &pkt); {
		case err == nil:
			p.Table.Packet(&pkt)
		case errors.Is(err, ErrNotIP):
			p.Stats.NotIP++
		default:
			p.Stats.Malformed++
		}
	}
}
