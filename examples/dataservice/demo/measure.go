package demo

import (
	"math"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// The recurring incident of the demo network: every IncidentEvery, for IncidentLasts, the
// orders database answers about ten times slower and the Lyon branch's link drops packets
// (retransmissions and resets from its clients).
const (
	IncidentEvery = 10 * time.Minute
	IncidentLasts = 2 * time.Minute
)

// during reports whether Unix second t is during an incident, incidents starting at Unix
// second incident and every IncidentEvery before and after.
func during(incident, t int64) bool {
	every := int64(IncidentEvery / time.Second)
	d := (t - incident) % every
	if d < 0 {
		d += every
	}
	return d < int64(IncidentLasts/time.Second)
}

// measure gives r, the record of f's slice from Unix second from to to, what a capture
// probe in the data centre would have measured: round trips to each side, connection time
// on the slice where the conversation opened, response and transfer times of its requests
// (a few samples each), and, over TCP, retransmissions and resets, more on a lossy link.
func (f *flow) measure(r *records.Record, from, to float64, incident bool) {
	tcp := r.Protocol == records.TCP
	if f.plain || !tcp && r.Protocol != records.UDP {
		return
	}
	rng := f.rng
	serverRTT := f.perf.rtt
	if serverRTT == 0 {
		serverRTT = 0.0002
	}
	draw := func(median, spread float64) float64 { return logNormal(rng, median, spread) }
	if tcp {
		n := min(1+(r.Client.Packets+r.Server.Packets)/50, 4)
		for range n {
			sample(&r.Client.RTT, draw(f.site.rtt, 0.25))
			sample(&r.Server.RTT, draw(serverRTT, 0.25))
		}
		if from == f.start {
			sample(&r.CT, draw(f.site.rtt, 0.25)+draw(serverRTT, 0.25))
		}
	}
	if f.perf.srt > 0 {
		slow := 1.0
		if incident && f.perf.slows {
			slow = 12
		}
		n := min(1+r.Client.Packets/8, 6)
		perResponse := float64(r.Server.Bytes) / float64(n)
		for range n {
			sample(&r.SRT, slow*draw(f.perf.srt, f.perf.spread)+draw(serverRTT, 0.25))
			sample(&r.DTT, perResponse/draw(2e6, 0.6))
		}
	}
	if !tcp {
		return
	}
	loss := f.site.loss
	if incident && f.site.incident {
		loss *= 15
	}
	r.Client.Retrans = uint64(poisson(rng, float64(r.Client.Packets)*loss))
	r.Server.Retrans = uint64(poisson(rng, float64(r.Server.Packets)*loss))
	if to == f.end && rng.Float64() < 0.005+5*loss {
		r.Resets = 1
	}
}

// sample adds a sample of v seconds to t.
func sample(t *records.Timing, v float64) {
	t.Sum += uint64(math.Round(v * 1e6))
	t.Samples++
	t.Hist.Add(v)
}
