// Package inlet is the inlet component of the data service: what brings records in and gives
// them their context before they are stored. It owns the NetFlow/IPFIX and sFlow collectors
// (package collect), the capture probe (package capture, capture.go), the demo generator
// (package demo, demo.go), and the context of records (package netctx: zones, applications,
// GeoIP files, SNMP names; context.go and enrich.go), and it serves collector-status and the
// zone and application functions.
//
// New opens the context (a wrong GeoIP file fails it); Start listens for flows, opens the
// capture sources and starts the background work; Stop stores what was received and stops.
// Every record the service stores, the ingest function's too, goes through Enrich. The inlet
// depends on the records and state stores and on the configuration keys of package manage
// (Dependencies), never on another component; docs/architecture.md shows the order the
// service starts its components in.
package inlet
