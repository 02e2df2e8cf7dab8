package capture_test

import (
	"os"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/internal/testutil"
)

// waitClosed waits until no TCP socket of the network namespaces is in a closing handshake
// that still waits for a packet (FIN_WAIT1, CLOSE_WAIT, LAST_ACK or CLOSING), so that a packet
// lost later cannot be one of them. It reads the sockets from a thread in each namespace, not
// from a command, to keep the machine quiet for the probe.
func waitClosed(t *testing.T, namespaces ...string) {
	t.Helper()
	testutil.Eventually(t, "the closing handshakes to end", func() bool {
		closing := false
		for _, ns := range namespaces {
			inNetns(t, ns, func() error {
				for _, name := range []string{"/proc/thread-self/net/tcp", "/proc/thread-self/net/tcp6"} {
					b, err := os.ReadFile(name)
					if err != nil {
						return err
					}
					for line := range strings.Lines(string(b)) {
						if f := strings.Fields(line); len(f) > 3 {
							switch f[3] { // st: the state, in hexadecimal
							case "04", "08", "09", "0B":
								closing = true
							}
						}
					}
				}
				return nil
			})
		}
		return !closing
	})
}
