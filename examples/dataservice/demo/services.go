package demo

import (
	"math"
	"math/rand/v2"
	"net/netip"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// service is a kind of conversation: who serves it, who uses it, how often and how big.
type service struct {
	app   string
	proto uint8
	port  uint16
	// v4 and v6 are the servers; IPv6 clients use v6, the others v4.
	v4, v6 []netip.Addr
	kind   clientKind
	// weight is how often a client of kind opens such a conversation, compared with the others.
	weight float64
	// size draws a conversation's duration in seconds and what each side sends in total.
	size func(r *rand.Rand) conversation
	perf
}

// perf is how a service answers: its response times.
type perf struct {
	// srt is the median time the server takes to answer a request, in seconds, and spread
	// the log-normal spread around it (a long tail when large); 0: no request and answer.
	srt, spread float64
	// rtt is the median round trip between the probe and the server, in seconds; 0: the
	// server is in the data centre, next to the probe.
	rtt float64
	// slows reports that the server is the database that slows down during the incident.
	slows bool
}

// conversation is what one conversation lasts and sends, before it is cut into time slices.
type conversation struct {
	seconds                    float64
	clientBytes, clientPackets float64
	serverBytes, serverPackets float64
}

// logNormal draws from a log-normal distribution with the given median and spread.
func logNormal(r *rand.Rand, median, sigma float64) float64 {
	return median * math.Exp(sigma*r.NormFloat64())
}

// download is a TCP conversation where the server sends most: request and acknowledgements up,
// full-size packets down.
func download(median, sigma, maxSeconds float64) func(*rand.Rand) conversation {
	return func(r *rand.Rand) conversation {
		down := math.Min(logNormal(r, median, sigma), 2e9)
		downPackets := math.Ceil(down/1380) + 3
		upPackets := math.Ceil(downPackets/2) + 4
		// Throughput between 200 kB/s and 20 MB/s, plus set-up time.
		seconds := math.Min(0.05+down/(2e5*math.Pow(100, r.Float64())), maxSeconds)
		return conversation{
			seconds:     seconds,
			clientBytes: 400 + r.Float64()*1600 + upPackets*52, clientPackets: upPackets,
			serverBytes: down + downPackets*52, serverPackets: downPackets,
		}
	}
}

// upload is a TCP conversation where the client sends most (mail submission, file copies).
func upload(median, sigma float64) func(*rand.Rand) conversation {
	return func(r *rand.Rand) conversation {
		c := download(median, sigma, 3600)(r)
		c.clientBytes, c.serverBytes = c.serverBytes, c.clientBytes
		c.clientPackets, c.serverPackets = c.serverPackets, c.clientPackets
		return c
	}
}

// exchange is a conversation of small requests and answers, packets one each way per round:
// DNS, NTP, database and cache queries, interactive sessions.
func exchange(rounds, upSize, downSize, seconds float64) func(*rand.Rand) conversation {
	return func(r *rand.Rand) conversation {
		n := math.Max(1, math.Round(logNormal(r, rounds, 0.8)))
		return conversation{
			seconds:     logNormal(r, seconds, 0.7),
			clientBytes: n * upSize * (0.6 + 0.8*r.Float64()), clientPackets: n,
			serverBytes: n * downSize * (0.6 + 0.8*r.Float64()), serverPackets: n,
		}
	}
}

// services returns the catalogue of conversations on the monitored network. Response times
// differ by application: a fast cache, a database with a long tail, a slow partner API.
func services() []service {
	web := addrs("192.0.2.34", "203.0.113.10", "203.0.113.11", "198.51.100.20", "198.51.100.21", "192.0.2.80")
	web6 := addrs("2001:db8:80::10", "2001:db8:80::11")
	webPerf := perf{srt: 0.04, spread: 0.9, rtt: 0.035}
	return []service{
		{app: "dns", proto: records.UDP, port: 53, v4: addrs("10.0.0.2", "10.0.0.2", "198.51.100.53"),
			v6: addrs("fd00::53"), kind: desktop, weight: 30, size: exchange(1, 70, 180, 0.03), perf: perf{srt: 0.002, spread: 1.2}},
		{app: "https", proto: records.TCP, port: 443, v4: web, v6: web6, kind: desktop, weight: 26,
			size: download(40e3, 2.2, 900), perf: webPerf},
		{app: "https", proto: records.TCP, port: 443, v4: addrs("10.0.0.71"), kind: desktop, weight: 4,
			size: download(25e3, 1.2, 60), perf: perf{srt: 0.06, spread: 0.5}},
		{app: "https-alt", proto: records.TCP, port: 8443, v4: addrs("10.0.0.70"), kind: desktop, weight: 1.5,
			size: download(30e3, 1.2, 60), perf: perf{srt: 0.12, spread: 0.6}},
		{app: "quic", proto: records.UDP, port: 443, v4: web[:2], v6: web6[:1], kind: desktop, weight: 6,
			size: download(60e3, 2, 600), perf: webPerf},
		{app: "http", proto: records.TCP, port: 80, v4: web, v6: web6, kind: desktop, weight: 6,
			size: download(15e3, 1.8, 300), perf: webPerf},
		{app: "http-alt", proto: records.TCP, port: 8080, v4: addrs("10.0.0.50", "10.0.0.51"), kind: desktop, weight: 4,
			size: download(8e3, 1.2, 60), perf: perf{srt: 0.03, spread: 0.7}},
		{app: "ssh", proto: records.TCP, port: 22, v4: addrs("10.0.0.20", "10.0.0.21", "10.0.0.22", "198.51.100.22"),
			v6: addrs("fd00::22"), kind: desktop, weight: 0.6, size: exchange(400, 90, 180, 900), perf: perf{srt: 0.0005, spread: 0.5}},
		{app: "ssh", proto: records.TCP, port: 22, v4: addrs("10.0.0.20", "10.0.0.21"), kind: desktop, weight: 0.1,
			size: upload(3e6, 1.5)},
		{app: "ntp", proto: records.UDP, port: 123, v4: addrs("192.0.2.200", "10.0.0.3"), v6: addrs("fd00::123"),
			kind: desktop, weight: 2, size: exchange(1, 90, 90, 0.02), perf: perf{srt: 0.0003, spread: 0.3}},
		{app: "icmp", proto: records.ICMP, v4: addrs("10.0.0.1", "198.51.100.1"), kind: desktop, weight: 1.5,
			size: exchange(4, 84, 84, 3)},
		{app: "icmpv6", proto: records.ICMPv6, v6: addrs("fd00::1"), kind: desktop, weight: 1.5,
			size: exchange(4, 104, 104, 3)},
		{app: "smtp", proto: records.TCP, port: 25, v4: addrs("10.0.0.25"), kind: desktop, weight: 1.5,
			size: upload(30e3, 1.8), perf: perf{srt: 0.08, spread: 0.6}},
		{app: "imaps", proto: records.TCP, port: 993, v4: addrs("10.0.0.25"), v6: addrs("fd00::25"), kind: desktop,
			weight: 3, size: download(20e3, 2, 120), perf: perf{srt: 0.02, spread: 0.8}},
		{app: "ldap", proto: records.TCP, port: 389, v4: addrs("10.0.0.30"), kind: desktop, weight: 1,
			size: exchange(3, 200, 900, 0.2), perf: perf{srt: 0.004, spread: 0.6}},
		{app: records.Unknown, proto: records.TCP, port: 4444, v4: addrs("203.0.113.66"), kind: desktop, weight: 0.3,
			size: exchange(50, 300, 2000, 30)},
		{app: records.Unknown, proto: records.UDP, port: 27015, v4: addrs("198.51.100.77"), kind: desktop, weight: 0.5,
			size: exchange(3000, 80, 160, 600)},
		{app: records.Unknown, proto: records.TCP, port: 9000, v4: addrs("10.0.0.60"), kind: desktop, weight: 0.5,
			size: download(5e3, 1, 10)},
		{app: "dns", proto: records.UDP, port: 53, v4: addrs("10.0.0.2"), kind: appServer, weight: 10,
			size: exchange(1, 70, 180, 0.01), perf: perf{srt: 0.001, spread: 0.8}},
		{app: "postgresql", proto: records.TCP, port: 5432, v4: addrs("10.0.0.40", "10.0.0.41"), kind: appServer,
			weight: 12, size: exchange(40, 300, 4000, 20), perf: perf{srt: 0.003, spread: 1.3, slows: true}},
		{app: "redis", proto: records.TCP, port: 6379, v4: addrs("10.0.0.42"), kind: appServer, weight: 10,
			size: exchange(30, 90, 400, 5), perf: perf{srt: 0.0003, spread: 0.35}},
		{app: "mysql", proto: records.TCP, port: 3306, v4: addrs("10.0.0.43"), kind: appServer, weight: 3,
			size: exchange(20, 250, 3000, 10), perf: perf{srt: 0.006, spread: 0.8}},
		{app: "https", proto: records.TCP, port: 443, v4: web[3:], kind: appServer, weight: 2,
			size: download(5e3, 1.5, 30), perf: webPerf},
		{app: "https", proto: records.TCP, port: 443, v4: addrs("203.0.113.40"), kind: appServer, weight: 3,
			size: download(3e3, 1, 30), perf: perf{srt: 0.4, spread: 0.45, rtt: 0.03}},
		{app: "ntp", proto: records.UDP, port: 123, v4: addrs("10.0.0.3"), kind: appServer, weight: 1,
			size: exchange(1, 90, 90, 0.02), perf: perf{srt: 0.0003, spread: 0.3}},
		{app: "https", proto: records.TCP, port: 443, v4: addrs("10.0.0.80"), kind: customer, weight: 1,
			size: download(30e3, 1.5, 120), perf: perf{srt: 0.08, spread: 0.6}},
	}
}
