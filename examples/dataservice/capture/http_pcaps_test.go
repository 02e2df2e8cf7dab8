package capture_test

// The HTTP tests' capture files, made with scapy as the others (scapy_pcaps_test.go). Each
// snippet starts with httpPy: conv(C, S, cport, sport) returns a conversation whose c() and
// s() send the client's and the server's segments in sequence, and skip() loses bytes before
// the probe.
func init() {
	for name, s := range map[string]string{
		"httpKeepAlive": httpKeepAlive,
		"httpPipelined": httpPipelined,
		"httpSegments":  httpSegments,
		"httpNoAnswer":  httpNoAnswer,
		"httpOrphan":    httpOrphan,
		"httpGaps":      httpGaps,
		"httpBounds":    httpBounds,
	} {
		captures[name] = httpPy + s
	}
}

const httpPy = `
class conv:
    def __init__(self, C, S, cp, sp):
        self.C, self.S, self.cp, self.sp, self.seq = C, S, cp, sp, [1000, 5000]
    def send(self, side, load, t, flags):
        src, dst, sp, dp = (self.C, self.S, self.cp, self.sp) if side == 0 else (self.S, self.C, self.sp, self.cp)
        pkts.append(tcp(src, dst, sp, dp, flags, self.seq[side], self.seq[1-side], load, t=t))
        self.seq[side] += len(load) + (1 if "F" in flags or "S" in flags else 0)
    def c(self, load, t, flags="PA"): self.send(0, load, t, flags)
    def s(self, load, t, flags="PA"): self.send(1, load, t, flags)
    def skip(self, side, n): self.seq[side] += n
    def handshake(self, t):
        pkts.append(tcp(self.C, self.S, self.cp, self.sp, "S", self.seq[0]-1, 0, t=t))
        pkts.append(tcp(self.S, self.C, self.sp, self.cp, "SA", self.seq[1]-1, self.seq[0], t=t+0.010))
        pkts.append(tcp(self.C, self.S, self.cp, self.sp, "A", self.seq[0], self.seq[1], t=t+0.011))
`

// Three requests on one connection: a query string and a Host with a port, a body across two
// segments, a 304 without a body.
const httpKeepAlive = `
k = conv("10.8.0.1", "10.8.0.2", 41000, 8080)
k.handshake(0.0)
k.c(b"GET /api/users/42?x=1 HTTP/1.1\r\nHost: Shop.Example:8080\r\n\r\n", 0.100)
k.s(b"HTTP/1.1 200 OK\r\nContent-Length: 300\r\n\r\n" + b"a"*100, 0.150)
k.s(b"a"*200, 0.180)
k.c(b"", 0.181, "A")
k.c(b"POST /orders/550e8400-e29b-41d4-a716-446655440000 HTTP/1.1\r\nHost: shop.example\r\nContent-Length: 20\r\n\r\n", 1.000)
k.c(b"b"*20, 1.001)
k.s(b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n", 1.300)
k.c(b"GET /static/app.js HTTP/1.1\r\nHost: shop.example\r\nIf-None-Match: \"x\"\r\n\r\n", 2.000)
k.s(b"HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\n\r\n", 2.020)
k.c(b"", 3.0, "FA")
k.s(b"", 3.010, "FA")
k.c(b"", 3.011, "A")
`

// Two requests in one segment, answered by a chunked response and a HEAD's (a length, no
// body) in one segment; then a chunk size split across segments, with a trailer.
const httpPipelined = `
k = conv("10.8.1.1", "10.8.1.2", 41001, 80)
k.c(b"GET /a HTTP/1.1\r\nHost: p.example\r\n\r\nHEAD /b/deadbeef01 HTTP/1.1\r\nHost: p.example\r\n\r\n", 0.100)
k.s(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n", 0.200)
k.s(b"6;ext=1\r\n world\r\n0\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", 0.250)
k.c(b"GET /c HTTP/1.1\r\n\r\n", 0.300)
k.s(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n1", 0.400)
k.s(b"0\r\n" + b"x"*16 + b"\r\n", 0.410)
k.s(b"0\r\nTrailer: y\r\n\r\n", 0.420)
`

// A request across three segments (a Host that is an IPv6 address with a port); an absolute
// target (a proxy's); an upload after 100 Continue.
const httpSegments = `
k = conv("10.8.2.1", "10.8.2.2", 41002, 8000)
q = b"GET /search?q=a+b HTTP/1.1\r\nHost: [2001:DB8::1]:8000\r\nUser-Agent: x\r\n\r\n"
k.c(q[:10], 0.100)
k.c(q[10:40], 0.110)
k.c(q[40:], 0.120)
k.s(b"HTTP/1.1 404 Not Found\r\nContent-Length: 5\r\n\r\nnope!", 0.200)
k.c(b"GET http://Proxy.Example:3128/a/b?q=1 HTTP/1.1\r\nHost: other.example\r\n\r\n", 0.500)
k.s(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n", 0.600)
k.c(b"PUT /upload HTTP/1.1\r\nHost: up.example\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n", 1.000)
k.s(b"HTTP/1.1 100 Continue\r\n\r\n", 1.010)
k.c(b"data", 1.020)
k.s(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", 1.050)
`

// A request the server resets, one never answered (the file ends), and an HTTP/1.0 response
// that ends with the connection.
const httpNoAnswer = `
k = conv("10.8.3.1", "10.8.3.2", 41003, 80)
k.c(b"GET /slow HTTP/1.1\r\nHost: slow.example\r\n\r\n", 0.100)
k.s(b"", 0.110, "A")
k.s(b"", 5.000, "RA")
k = conv("10.8.3.1", "10.8.3.2", 41004, 80)
k.c(b"GET /never HTTP/1.1\r\nHost: slow.example\r\n\r\n", 0.200)
k = conv("10.8.3.1", "10.8.3.2", 41005, 80)
k.c(b"GET /old HTTP/1.0\r\n\r\n", 0.300)
k.s(b"HTTP/1.0 200 OK\r\n\r\n" + b"z"*500, 0.400)
k.s(b"z"*500, 0.500)
k.s(b"", 0.600, "FA")
`

// The capture begins during a response; the next request is followed.
const httpOrphan = `
k = conv("10.8.4.1", "10.8.4.2", 41006, 80)
k.s(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc", 0.100)
k.c(b"", 0.110, "A")
k.c(b"GET /next HTTP/1.1\r\nHost: o.example\r\n\r\n", 1.000)
k.s(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 1.010)
`

// Bytes lost before the probe: in a body (passed over), then at a request's start (the
// connection is given up, and followed again from the next request line).
const httpGaps = `
k = conv("10.8.5.1", "10.8.5.2", 41007, 80)
k.c(b"GET /big HTTP/1.1\r\nHost: g.example\r\n\r\n", 0.100)
k.s(b"HTTP/1.1 200 OK\r\nContent-Length: 3000\r\n\r\n" + b"x"*1000, 0.200)
k.skip(1, 1000)
k.s(b"x"*1000, 0.300)
k.c(b"GET /two HTTP/1.1\r\nHost: g.example\r\n\r\n", 1.000)
k.s(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 1.100)
q = b"GET /lost HTTP/1.1\r\nHost: g.example\r\n\r\n"
k.skip(0, 10)
k.c(q[10:], 2.000)
k.s(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 2.100)
k.c(b"GET /after HTTP/1.1\r\nHost: g.example\r\n\r\n", 3.000)
k.s(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 3.100)
`

// A header block past HTTPMaxHeader across segments, and one more request than
// HTTPMaxPipeline waiting on another connection.
const httpBounds = `
k = conv("10.8.6.1", "10.8.6.2", 41008, 80)
h = b"GET /x HTTP/1.1\r\nCookie: " + b"c"*5000
for i in range(0, len(h), 1400):
    k.c(h[i:i+1400], 0.100 + i/1e6)
k = conv("10.8.6.1", "10.8.6.2", 41009, 80)
k.c(b"".join(b"GET /p%d HTTP/1.1\r\nHost: q.example\r\n\r\n" % i for i in range(9)), 0.200)
k = conv("10.8.6.1", "10.8.6.2", 41010, 80)
k.c(b"".join(b"GET /p%d HTTP/1.1\r\nHost: q.example\r\n\r\n" % i for i in range(8)), 0.300)
`
