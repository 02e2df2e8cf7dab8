package demo

import (
	"math"
	"math/rand/v2"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// The application layers a probe in the data centre decodes (records.LayerHTTP, LayerDNS,
// LayerTLS): HTTP requests to the web servers in clear, DNS queries, TLS handshakes. Each is a
// record of its own beside the conversation's transport records, as the probe makes them (an
// HTTP record counts its request's and response's bytes, DNS and TLS records none), drawn from the flow's own
// layers generator so that the transport records stay as they were without the layers.

// httpSite is what the clients of an HTTP server ask it for.
type httpSite struct {
	// paths are the request targets as a probe folds them (ids as {n}); slow is the path
	// that waits for the orders database, slower and failing more during the incident;
	// missing a broken link, always 404, so that errors show at the quietest hour too.
	paths         []string
	slow, missing string
}

// httpSites are the servers the demo's clients speak HTTP in clear to, by name.
var httpSites = map[string]httpSite{
	"intranet.corp.example": {paths: []string{"/", "/news", "/api/orders/{n}", "/api/stock/{n}", "/static/app.js"},
		slow: "/api/orders/{n}"},
	"wiki.corp.example":  {paths: []string{"/wiki/Main_Page", "/wiki/Expenses", "/search", "/static/wiki.css"}},
	"www.example.com":    {paths: []string{"/", "/index.html", "/images/logo.png", "/favicon.ico"}, missing: "/favicon.ico"},
	"news.example.net":   {paths: []string{"/", "/articles/{n}", "/feed.xml"}},
	"cloud.example.com":  {paths: []string{"/", "/downloads/{n}", "/login"}},
	"files.example.com":  {paths: []string{"/files/{id}", "/thumbnails/{id}"}},
	"cdn.example.net":    {paths: []string{"/assets/site.css", "/assets/app.js", "/fonts/{id}"}},
	"static.example.net": {paths: []string{"/img/{id}", "/js/vendor.js"}},
}

// dnsNames are the names the clients resolve; wpad is the classic name no one serves
// (NXDOMAIN), legacy.partner.example a broken delegation (SERVFAIL).
var dnsNames = []string{
	"www.example.com", "cloud.example.com", "files.example.com", "cdn.example.net", "news.example.net",
	"api.partner.example", "mail.corp.example", "intranet.corp.example", "wiki.corp.example",
	"crm.corp.example", "payroll.corp.example", "ldap.corp.example", "time.corp.example",
	"update.example.net", "wpad.corp.example", "legacy.partner.example",
}

// tlsServer is how a server speaks TLS: 1.2 servers show their certificate in clear.
type tlsServer struct {
	version, cipher uint16
	// expires is how many days after the record's day the certificate expires, issuer who
	// signed it (TLS 1.2 only).
	expires int64
	issuer  string
}

// tlsServers are the servers that still speak TLS 1.2 (the others 1.3): the partner's API
// with a certificate about to expire, the payroll on an old cipher suite.
var tlsServers = map[string]tlsServer{
	"api.partner.example":  {version: 0x0303, cipher: 0xc02f, expires: 9, issuer: "CN=Example TLS RSA CA 2024,O=Example Trust"},
	"payroll.corp.example": {version: 0x0303, cipher: 0x009c, expires: 41, issuer: "CN=Example Corp Internal CA,O=Example Corp"},
	"mail.corp.example":    {version: 0x0303, cipher: 0xc030, expires: 212, issuer: "CN=Example Corp Internal CA,O=Example Corp"},
}

// layers appends to out the layer records of r, the transport record of f's slice starting at
// Unix second from: its HTTP requests when the server speaks HTTP in clear, its DNS query and
// its TLS handshake on the slice where the conversation opened.
func (f *flow) layers(out []records.Record, r *records.Record, from float64, incident bool) []records.Record {
	if f.plain || f.lrng == nil {
		return out
	}
	base := *r
	base.Client = records.Endpoint{IP: r.Client.IP, Port: r.Client.Port}
	base.Server = records.Endpoint{IP: r.Server.IP, Port: r.Server.Port}
	base.CT, base.SRT, base.DTT, base.Resets = records.Timing{}, records.Timing{}, records.Timing{}, 0
	switch {
	case r.Protocol == records.TCP && (r.Server.Port == 80 || r.Server.Port == 8080):
		return f.httpRequests(out, base, r, incident)
	case r.Server.Port == 53 && from == f.start:
		return append(out, f.dnsQuery(base, incident))
	case r.Protocol == records.TCP && (r.Server.Port == 443 || r.Server.Port == 8443 || r.Server.Port == 993) && from == f.start:
		return append(out, f.tlsHandshake(base))
	}
	return out
}

// httpRequests appends a record per request of the slice: a few per slice, as many as the
// transport record has response times.
func (f *flow) httpRequests(out []records.Record, base records.Record, r *records.Record, incident bool) []records.Record {
	site, ok := httpSites[r.ServerName]
	if !ok {
		return out
	}
	rng := f.lrng
	for range min(1+r.Client.Packets/8, 6) {
		h := base
		h.Layer = records.LayerHTTP
		path := site.paths[rng.IntN(len(site.paths))]
		slow := path == site.slow
		h.HTTP = records.HTTP{Method: "GET", Status: 200, Host: r.ServerName, Path: path}
		switch p := rng.Float64(); {
		case path == site.missing:
			h.HTTP.Status = 404
		case slow && incident && p < 0.1, p < 0.01:
			h.HTTP.Status = 500
		case p < 0.05:
			h.HTTP.Status = 404
		case p < 0.08:
			h.HTTP.Status = 301
		case p < 0.18:
			h.HTTP.Status = 304
		}
		if slow && rng.Float64() < 0.3 {
			h.HTTP.Method = "POST"
		}
		body := 0.0
		if h.HTTP.Status == 200 {
			body = math.Min(logNormal(rng, 12e3, 1.4), 5e7)
		}
		h.Client.Bytes, h.Client.Packets = uint64(300+rng.IntN(600)), 1
		h.Server.Bytes = uint64(250 + body)
		h.Server.Packets = uint64(math.Ceil(float64(h.Server.Bytes) / 1380))
		srt := logNormal(rng, f.perf.srt, f.perf.spread)
		if slow {
			srt = logNormal(rng, 0.02, 1.1)
			if incident {
				srt *= 12
			}
		}
		sample(&h.SRT, srt)
		sample(&h.DTT, body/logNormal(rng, 2e6, 0.6))
		out = append(out, h)
	}
	return out
}

// dnsQuery returns the record of the slice's DNS query: most answered at once, wpad never
// found, the broken delegation failing, a few lost on the Lyon link (more in the incident).
func (f *flow) dnsQuery(base records.Record, incident bool) records.Record {
	rng := f.lrng
	d := base
	d.Layer = records.LayerDNS
	d.DNS.QName = dnsNames[rng.IntN(len(dnsNames))]
	d.DNS.QType = 1
	switch p := rng.Float64(); {
	case p < 0.3:
		d.DNS.QType = 28
	case p < 0.35:
		d.DNS.QType = 65
	}
	lost := 0.002
	if f.site.incident && incident {
		lost = 0.05
	}
	switch {
	case rng.Float64() < lost:
		d.DNS.RCode = records.RCodeTimeout
		return d
	case d.DNS.QName == "wpad.corp.example":
		d.DNS.RCode = 3
	case d.DNS.QName == "legacy.partner.example":
		d.DNS.RCode = 2
	}
	srt := logNormal(rng, f.perf.srt, f.perf.spread)
	if d.DNS.RCode == 2 {
		srt += logNormal(rng, 1.5, 0.3) // the resolver gave up on the broken delegation
	}
	sample(&d.SRT, srt)
	return d
}

// tlsHandshake returns the record of the conversation's TLS handshake: TLS 1.3 unless the
// server is one of tlsServers; a certificate seen only in TLS 1.2.
func (f *flow) tlsHandshake(base records.Record) records.Record {
	rng := f.lrng
	t := base
	t.Layer = records.LayerTLS
	t.TLS = records.TLS{Version: 0x0304, Cipher: 0x1301}
	if rng.Float64() < 0.3 {
		t.TLS.Cipher = 0x1302
	}
	rounds := 1.0
	if s, ok := tlsServers[base.ServerName]; ok {
		rounds = 2
		t.TLS = records.TLS{Version: s.version, Cipher: s.cipher, Issuer: s.issuer,
			NotAfter: (base.Time/86400 + s.expires) * 86400}
	}
	serverRTT := f.perf.rtt
	if serverRTT == 0 {
		serverRTT = 0.0002
	}
	sample(&t.CT, rounds*(logNormal(rng, f.site.rtt, 0.25)+logNormal(rng, serverRTT, 0.25)))
	return t
}

// layersRand returns the generator of a flow's layer records, from the flow's seed without
// drawing from the flow's own, so that the transport records are those without layers.
func layersRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed^0xbb67ae8584caa73b, seed))
}
