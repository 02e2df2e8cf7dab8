// Package proxyproto reads the PROXY protocol (versions 1 and 2, as haproxy specifies it) on
// the connections of trusted load balancers, so that a server behind a balancer in TCP mode
// sees each client's own address: for rate limits, login throttling, logs and audit trails.
//
//	ln, _ := net.Listen("tcp", ":8443")
//	ln = &proxyproto.Listener{Listener: ln, Trusted: []netip.Prefix{netip.MustParsePrefix("10.0.0.5/32")}}
//	srv.ServeTLS(ln, "", "") // r.RemoteAddr is the client's address the balancer names
//
// A connection from a trusted address must begin with a PROXY header (a balancer configured
// to send none would otherwise let its clients send their own): its RemoteAddr is the source
// the header names, or the connection's own address for a header that names none (v2 LOCAL,
// as in health checks, v1 UNKNOWN, or an address family other than IPv4 and IPv6). From any
// other address a connection that begins with a PROXY header is refused, and other
// connections pass untouched.
//
// The header is read on the connection's first Read or RemoteAddr call, not in Accept, so that
// a slow client never holds the accept loop; it must arrive within Listener.HeaderTimeout and
// take at most MaxHeaderBytes. A refused connection's Read returns the error (the TLS
// handshake or the HTTP server then closes it).
package proxyproto
