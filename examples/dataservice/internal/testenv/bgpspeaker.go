package testenv

import (
	"context"
	"fmt"
	"log/slog"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/bgp"
)

// SpeakerAS is the AS of the speakers StartSpeaker starts.
const SpeakerAS = 64500

// StartSpeaker starts the service's BGP speaker with cfg, listening on a free port of
// 127.0.0.1 as AS SpeakerAS and allowing the routers at peers (addresses or prefixes), logging
// to log (nil: nowhere); it is stopped at the end of the test. It returns the speaker and its
// port, for the routers to connect to. Tests with speakers run side by side: each has a
// speaker and port of its own, which its routers connect to.
func StartSpeaker(t testing.TB, cfg bgp.Config, log *slog.Logger, peers ...string) (*bgp.Speaker, int) {
	t.Helper()
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
