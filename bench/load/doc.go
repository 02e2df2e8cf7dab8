// Package load drives the benchmark targets: HTTP through wrk (the same load generator for
// every HTTP target, a fixed number of keep-alive connections), WebSocket through a small Go
// client that keeps a fixed number of calls in flight on one connection.
//
// Both report a Result: the calls answered within the run's duration, the errors, and the
// median and 99th-percentile latency. wrk's numbers come from its Lua done() hook (wrk.lua,
// embedded here), so no human-readable output is parsed.
package load
