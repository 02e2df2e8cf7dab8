// Package demo generates realistic synthetic traffic records for the example data service's
// -demo mode, in the process, so a fresh service has something to query and chart.
//
// The network it imitates is a small office: about thirty clients (desktops and Wi-Fi laptops
// on private IPv4, two on IPv6, four application servers) talking to internal servers (DNS,
// NTP, mail, LDAP, databases, caches, an internal web app) and public ones (web over HTTPS,
// HTTP and QUIC, SSH, game and unknown ports, ping). Conversations start as a Poisson process
// with a daily rhythm (busy in the early afternoon, about a tenth of that at night, weekends
// quieter); their sizes follow log-normal laws per service, downloads sending far more from
// server to client, uploads the reverse, queries one packet each way. A conversation gives one
// record per minute slice it spans (Slice), its bytes and packets spread evenly over them.
//
// Run backfills the last 24 hours (about 300,000 records with the default Rate, generated in
// well under a second, written in batches of BatchSize) and then writes the new records every
// few seconds until its context is cancelled. It writes through a Writer, so it does not
// depend on the store. Generator alone gives deterministic records for tests.
package demo
