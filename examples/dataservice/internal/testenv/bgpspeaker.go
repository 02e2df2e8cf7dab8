package testenv

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/bgp"
)

// speakers serialises the tests of one process that run a BGP speaker, and the routers they
// start (gobgpd, bird): one test's sessions at a time on the shared machine.
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

// SpeakerAS is the AS of the speakers StartSpeaker starts.
const SpeakerAS = 64500

// StartSpeaker holds the process's turn (BGPSpeaker) and starts the service's BGP speaker with
// cfg, listening on a free port of 127.0.0.1 as AS SpeakerAS and allowing the routers at peers
// (addresses or prefixes), logging to log (nil: nowhere); it is stopped at the end of the test.
// It returns the speaker and its port, for the routers to connect to.
func StartSpeaker(t testing.TB, cfg bgp.Config, log *slog.Logger, peers ...string) (*bgp.Speaker, int) {
	t.Helper()
	BGPSpeaker(t)
	port := FreePort(t)
	cfg.Listen, cfg.AS = fmt.Sprintf("127.0.0.1:%d", port), SpeakerAS
	for _, p := range peers {
		ps, err := bgp.ParsePeers(p)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Peers = append(cfg.Peers, ps...)
	}
	s, err := bgp.New(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s, port
}
