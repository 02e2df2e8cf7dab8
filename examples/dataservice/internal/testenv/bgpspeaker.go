package testenv

import (
	"sync"
	"testing"
)

// speakers serialises the tests of one process that run a BGP speaker: GoBGP keeps its
// route-selection options in a package variable that each server's start writes and every
// server's sessions read, a data race between two servers of one process (a service runs one).
var (
	speakers sync.Mutex
	holderMu sync.Mutex
	holder   testing.TB // the test holding speakers
)

// BGPSpeaker holds the process's turn to run BGP speakers until t ends: call it before a
// speaker starts, so that the speakers stop (cleanups registered later run first) before
// the next test's start. A test may call it again, for each speaker it starts.
func BGPSpeaker(t testing.TB) {
	t.Helper()
	holderMu.Lock()
	held := holder == t
	holderMu.Unlock()
	if held {
		return
	}
	speakers.Lock()
	holderMu.Lock()
	holder = t
	holderMu.Unlock()
	t.Cleanup(func() {
		holderMu.Lock()
		holder = nil
		holderMu.Unlock()
		speakers.Unlock()
	})
}
