// Package demo generates realistic synthetic traffic records for the example data service's
// -demo mode, in the process, so a fresh service shows everything it knows: the demo is the
// product's showroom.
//
// The network it imitates is a company: a head office (desktops and Wi-Fi laptops on private
// IPv4, two on IPv6), branches in Lyon and Porto behind WAN links, a data centre (DNS, NTP,
// mail, LDAP, the payroll, CRM and customer portal servers, an orders database, a session
// cache, application servers calling a partner's API) and customers on the Internet using the
// portal. Clients talk to internal servers and public ones (web over HTTPS, HTTP and QUIC,
// SSH, game and unknown ports, ping). Conversations start as a Poisson process with a daily
// rhythm (busy in the early afternoon, about a tenth of that at night, weekends quieter);
// their sizes follow log-normal laws per service, downloads sending far more from server to
// client, uploads the reverse, queries one packet each way. A conversation gives one record
// per minute slice it spans (Slice), its bytes and packets spread evenly over them.
//
// Each record carries what a capture probe in the data centre and the routers would give:
// round trips to each side, connection, response and transfer times (a few samples each,
// with their distribution: the cache answers in a fraction of a millisecond, the database in
// a few with a long tail, the partner API in hundreds), retransmissions and resets (more
// from the branches, Lyon's link the lossiest), the server's name (SNI, Host), and the
// exporter and interfaces (Exporters names them). Public addresses are documentation ones
// (RFC 5737, RFC 3849) whose AS numbers (RFC 5398) and countries the MaxMind DB files of
// WriteGeoIP give; Zones and Applications name the rest. Every IncidentEvery the network has
// an incident of IncidentLasts: the orders database slows down and the Lyon link drops
// packets.
//
// Beside each conversation's transport records come the records of the application layers a
// probe decodes (layers.go): one per HTTP request to the servers spoken to in clear (host,
// path, status, response and transfer times; the intranet's orders path waits for the
// database, slower and failing more in the incident), one per DNS query (wpad never found, a
// broken delegation failing, queries lost on the Lyon link) and one per TLS handshake (1.3
// mostly; the partner's API and two internal servers on 1.2 with their certificates, the
// partner's expiring within days).
//
// The routes of the public addresses (Routes: an AS path ending at the network's AS of the
// GeoIP files, through one of two transit providers or from a peer at an exchange, and the
// company's communities saying which) are what a service without -bgp gives the demo's records
// (client.as_path, server.as_path, the communities), so that the route keys and Explore's
// route panel show data.
//
// Run backfills the last 24 hours (about 300,000 records with the default Rate) and then
// writes the new records every few seconds until its context is cancelled. It writes through
// a Writer, so it does not depend on the store. Generator alone gives deterministic records
// for tests.
package demo
