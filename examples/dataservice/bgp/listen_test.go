package bgp_test

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/bgp"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// TestListenTaken: a -bgp address another process holds fails the start with one error, and
// the log has no error of its own beside it.
func TestListenTaken(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	peers, err := bgp.ParsePeers("127.0.0.2/32")
	if err != nil {
		t.Fatal(err)
	}
	var log logBuffer
	s, err := bgp.New(bgp.Config{Listen: l.Addr().String(), AS: testenv.SpeakerAS, Peers: peers}, slog.New(slog.NewTextHandler(&log, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	err = s.Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), "-bgp "+l.Addr().String()) {
		t.Fatalf("start on a taken address: %v; want an error naming -bgp", err)
	}
	if strings.Contains(log.String(), "level=ERROR") {
		t.Errorf("the log has an error beside the start's:\n%s", log.String())
	}
}
