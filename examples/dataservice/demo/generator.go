package demo

import (
	"cmp"
	"math"
	"math/rand/v2"
	"net/netip"
	"slices"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// Slice is the time slice of the records: a conversation gives one record per minute it spans,
// as a network monitor exporting every minute does.
const Slice = 60

// Generator makes the synthetic traffic of a small office network. It is deterministic: the
// same options and calls give the same records. It is not safe for concurrent use.
type Generator struct {
	rng      *rand.Rand
	rate     float64
	loc      *time.Location
	clients  []client
	services []service
	// incident is a Unix second when the recurring incident starts.
	incident int64
	plain    bool // Options.Plain
	// at is the Unix second up to which conversations have been started.
	at int64
	// open holds the conversations with time slices not yet given out.
	open []flow
}

// flow is a conversation in progress.
type flow struct {
	rec                records.Record // addresses, ports, protocol, application, exporter, names
	conv               conversation
	start, end, cursor float64 // Unix seconds; cursor: how far records were given out
	site               *site
	perf               perf
	plain              bool // no measures
	// rng draws its measures, slice after slice: a flow's own, so that its records do not
	// depend on how often Until is called.
	rng *rand.Rand
	// lrng draws its layer records (layers.go).
	lrng *rand.Rand
}

// New returns a generator whose traffic starts at start; only Seed, Rate, Location, Incident
// and Plain of opts are used (a zero Incident: the incidents start at :00, :10, ... of each hour).
func New(start time.Time, opts Options) *Generator {
	opts = opts.withDefaults()
	var incident int64
	if !opts.Incident.IsZero() {
		incident = opts.Incident.Unix()
	}
	return &Generator{
		incident: incident,
		plain:    opts.Plain,
		rng:      rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15)),
		rate:     opts.Rate,
		loc:      opts.Location,
		clients:  clients(),
		services: services(),
		at:       start.Unix(),
	}
}

// Until generates traffic up to t and returns the records of the time slices that ended by t:
// per conversation, one record per minute slice it spans, cut when the conversation ends.
// Records come sorted by time. A t not after the previous one returns nothing.
func (g *Generator) Until(t time.Time) []records.Record {
	end := t.Unix()
	for ; g.at < end; g.at++ {
		g.startConversations(g.at)
	}
	var out []records.Record
	kept := g.open[:0]
	for i := range g.open {
		f := &g.open[i]
		out = f.emit(out, float64(end), g.incident)
		if f.cursor < f.end {
			kept = append(kept, *f)
		}
	}
	clear(g.open[len(kept):])
	g.open = kept
	slices.SortStableFunc(out, func(a, b records.Record) int { return cmp.Compare(a.Time, b.Time) })
	return out
}

// emit appends to out the records of f's slices that end by until, and advances f's cursor.
// incident is a Unix second when the recurring incident starts.
func (f *flow) emit(out []records.Record, until float64, incident int64) []records.Record {
	for f.cursor < f.end {
		next := math.Min((math.Floor(f.cursor/Slice)+1)*Slice, f.end)
		if next > until {
			break
		}
		r, start := f.rec, f.cursor
		r.Time = int64(math.Floor(f.cursor))
		r.Client.Bytes = f.share(f.conv.clientBytes, next)
		r.Client.Packets = f.share(f.conv.clientPackets, next)
		r.Server.Bytes = f.share(f.conv.serverBytes, next)
		r.Server.Packets = f.share(f.conv.serverPackets, next)
		f.cursor = next
		if r.Client.Bytes+r.Server.Bytes == 0 {
			continue
		}
		r.Client.Packets = max(r.Client.Packets, min(r.Client.Bytes, 1))
		r.Server.Packets = max(r.Server.Packets, min(r.Server.Bytes, 1))
		in := during(incident, r.Time)
		f.measure(&r, start, next, in)
		out = append(out, r)
		out = f.layers(out, &r, start, in)
	}
	return out
}

// share returns the part of total sent between f's cursor and next, spreading it evenly over
// the conversation so that the parts add up to total.
func (f *flow) share(total, next float64) uint64 {
	upTo := func(x float64) float64 {
		if x >= f.end {
			return math.Round(total)
		}
		return math.Round(total * (x - f.start) / (f.end - f.start))
	}
	return uint64(upTo(next) - upTo(f.cursor))
}

// startConversations opens the conversations that start during Unix second sec.
func (g *Generator) startConversations(sec int64) {
	people := g.busy(sec)
	for _, k := range []struct {
		kind clientKind
		rate float64
	}{
		{desktop, 0.75 * g.rate * people},
		{appServer, 0.25 * g.rate * (0.5 + 0.5*people)},
		{customer, 0.05 * g.rate * (0.3 + 0.7*people)},
	} {
		for range poisson(g.rng, k.rate) {
			g.open = append(g.open, g.conversation(k.kind, float64(sec)+g.rng.Float64()))
		}
	}
}

// busy returns how busy the people on the network are at Unix second sec, from about 0.1 at
// night to 1 in the early afternoon of working days; weekends are quieter.
func (g *Generator) busy(sec int64) float64 {
	t := time.Unix(sec, 0).In(g.loc)
	h := float64(t.Hour()) + float64(t.Minute())/60
	b := 0.1 + 0.9*math.Exp(-math.Pow((h-13.5)/3.8, 2))
	if wd := t.Weekday(); wd == time.Saturday || wd == time.Sunday {
		b *= 0.35
	}
	return b
}

// conversation draws a conversation opened at start by a client of kind.
func (g *Generator) conversation(kind clientKind, start float64) flow {
	c := pick(g.rng, g.clients, func(c client) float64 {
		if c.kind != kind {
			return 0
		}
		return c.activity
	})
	v6 := c.ip.Is6()
	s := pick(g.rng, g.services, func(s service) float64 {
		if s.kind != kind || (v6 && len(s.v6) == 0) || (!v6 && len(s.v4) == 0) {
			return 0
		}
		return s.weight
	})
	servers := s.v4
	if v6 {
		servers = s.v6
	}
	conv := s.size(g.rng)
	r := records.Record{Protocol: s.proto, Application: s.app}
	r.Client.IP, r.Server.IP = c.ip, servers[g.rng.IntN(len(servers))]
	if s.proto == records.TCP || s.proto == records.UDP {
		r.Client.Port, r.Server.Port = uint16(32768+g.rng.IntN(28232)), s.port
		r.ServerName = serverNames[r.Server.IP]
	}
	r.Exporter, r.InIf, r.OutIf = c.site.exporter, c.site.in, c.site.internet
	if internal(r.Server.IP) {
		r.OutIf = c.site.internal
	}
	seed := g.rng.Uint64()
	if g.plain {
		r.ServerName, r.Exporter, r.InIf, r.OutIf = "", netip.Addr{}, 0, 0
	}
	return flow{plain: g.plain, rec: r, conv: conv, start: start, end: start + conv.seconds, cursor: start, site: c.site, perf: s.perf,
		rng: rand.New(rand.NewPCG(seed, seed^0x6a09e667f3bcc908)), lrng: layersRand(seed)}
}

// pick draws one element of xs with probability proportional to weight; at least one weight
// must be positive.
func pick[T any](r *rand.Rand, xs []T, weight func(T) float64) T {
	var total float64
	for _, x := range xs {
		total += weight(x)
	}
	u := r.Float64() * total
	for _, x := range xs {
		if w := weight(x); w > 0 {
			if u < w {
				return x
			}
			u -= w
		}
	}
	// Rounding left u at the top: the last positive weight.
	for i := len(xs) - 1; ; i-- {
		if weight(xs[i]) > 0 {
			return xs[i]
		}
	}
}

// poisson draws how many events a Poisson process with mean lambda gives.
func poisson(r *rand.Rand, lambda float64) int {
	if lambda > 30 {
		return max(0, int(math.Round(lambda+math.Sqrt(lambda)*r.NormFloat64())))
	}
	limit, n, p := math.Exp(-lambda), 0, r.Float64()
	for p > limit {
		n++
		p *= r.Float64()
	}
	return n
}
