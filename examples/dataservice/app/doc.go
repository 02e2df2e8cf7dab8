// Package app assembles the data service: its stores in the data directory, the functions of
// every package (built-ins, auth, traffic, manage), the API handler under /api, the metrics at
// /metrics, the web UI at /, the demo traffic generator and the retention loop.
//
// The command (package main beside this one) parses the command line into a Config, calls
// Open and serves Handler with fnapi.Server, then calls Close; tests call Open and serve
// Handler themselves.
package app
