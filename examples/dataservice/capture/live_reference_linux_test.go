package capture_test

import (
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/capture"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// teeSource hands the probe the frames of a Source and keeps each TCP packet's headers, from
// which the test computes what the probe should measure (refRTT, refSRT): the same capture
// times, so that what is compared does not depend on how the machine scheduled the stacks,
// the forwarder or the servers.
type teeSource struct {
	capture.Source
	pkts []capture.Packet // headers only; read once the probe returned
}

func (s *teeSource) Next(f *capture.Frame) error {
	err := s.Source.Next(f)
	if err == nil && f.Data != nil {
		var p capture.Packet
		if capture.Decode(f.Link, f.Data, &p) == nil && p.Protocol == 6 {
			p.Time, p.Payload = f.Time, nil
			s.pkts = append(s.pkts, p)
		}
	}
	return err
}

func seqLess(a, b uint32) bool { return int32(a-b) < 0 }

// refRTT returns the RTT samples of the conversations with server port port as the package
// doc defines them, of the server's side (server) or the client's: the handshake (the latest
// SYN to the SYN-ACK; the SYN-ACK to the client's ACK of it), then the other side's latest
// new data or FIN to the first ACK covering it, when that ACK carries no data (none when the
// data was sent again).
func refRTT(pkts []capture.Packet, port uint16, server bool) records.Timing {
	type dir struct {
		next, end uint32
		started   bool
		pending   bool
		at        int64
	}
	type conv struct {
		syn, synack int64
		isn         [2]uint32
		dirs        [2]dir // by sender: 0 the client, 1 the server
	}
	var out records.Timing
	convs := map[uint16]*conv{}
	sampler := 1 // the side whose ACKs give the samples
	if !server {
		sampler = 0
	}
	for _, p := range pkts {
		side, cport := 0, p.SrcPort
		switch {
		case p.DstPort == port:
		case p.SrcPort == port:
			side, cport = 1, p.DstPort
		default:
			continue
		}
		c := convs[cport]
		if c == nil {
			c = &conv{}
			convs[cport] = c
		}
		d := &c.dirs[side]
		if p.Flags&capture.FlagSYN != 0 {
			if side == 0 {
				c.syn, c.isn[0] = p.Time, p.Seq
			} else if c.synack == 0 && c.syn != 0 && p.Ack == c.isn[0]+1 {
				c.synack, c.isn[1] = p.Time, p.Seq
				if server {
					out.Add(time.Duration(p.Time - c.syn))
				}
			}
			d.started, d.next = true, p.Seq+1
			continue
		}
		if p.Flags&capture.FlagACK != 0 {
			if side == 0 && c.synack != 0 && c.syn != 0 && p.Ack == c.isn[1]+1 {
				if !server {
					out.Add(time.Duration(p.Time - c.synack))
				}
				c.syn = 0 // the handshake is done
			}
			if o := &c.dirs[1-side]; o.pending && !seqLess(p.Ack, o.end) {
				o.pending = false
				if p.PayloadLen == 0 && side == sampler {
					out.Add(time.Duration(p.Time - o.at))
				}
			}
		}
		n := uint32(p.PayloadLen)
		if p.Flags&capture.FlagFIN != 0 {
			n++
		}
		switch end := p.Seq + n; {
		case n == 0:
		case !d.started || !seqLess(p.Seq, d.next):
			d.started, d.next, d.pending, d.end, d.at = true, end, true, end, p.Time
		default: // sent again
			if d.pending && seqLess(p.Seq, d.end) {
				d.pending = false
			}
			if seqLess(d.next, end) {
				d.next = end
			}
		}
	}
	return out
}

// refSRT returns the srt samples of the conversations with server port port: the client's
// last data packet before the server's first data packet after it.
func refSRT(pkts []capture.Packet, port uint16) records.Timing {
	var out records.Timing
	last := map[uint16]int64{} // by client port: the client's last data since the server's
	for _, p := range pkts {
		switch {
		case p.PayloadLen == 0:
		case p.DstPort == port:
			last[p.SrcPort] = p.Time
		case p.SrcPort == port:
			if at, ok := last[p.DstPort]; ok {
				out.Add(time.Duration(p.Time - at))
				delete(last, p.DstPort)
			}
		}
	}
	return out
}

// refHTTPSRT returns the srt samples of the HTTP records of the conversations with server
// port port (one request each): from the packet that first carried the request's last byte
// (a segment sent again counts from the first time) to the response's first packet.
func refHTTPSRT(pkts []capture.Packet, port uint16) records.Timing {
	type req struct {
		end  uint32
		at   int64
		done bool
	}
	var out records.Timing
	reqs := map[uint16]*req{}
	for _, p := range pkts {
		switch {
		case p.PayloadLen == 0:
		case p.DstPort == port:
			r := reqs[p.SrcPort]
			if end := p.Seq + uint32(p.PayloadLen); r == nil || seqLess(r.end, end) {
				reqs[p.SrcPort] = &req{end: end, at: p.Time}
			}
		case p.SrcPort == port:
			if r := reqs[p.DstPort]; r != nil && !r.done {
				out.Add(time.Duration(p.Time - r.at))
				r.done = true
			}
		}
	}
	return out
}
