package transport_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/fnapi/fnapi/transport"
)

// TestWSTranscripts replays the WebSocket transcripts of testdata/ws_*.txt: a line "--> msg" is
// sent by the client, a line "<-- msg" is a message the server must answer. A run of "<--"
// lines may arrive in any order between calls, but each call's messages (by id) in order.
func TestWSTranscripts(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("testdata/ws_*.txt")
	if len(files) == 0 {
		t.Fatal("no transcript")
	}
	srv, _ := newStreamServer(t, transport.Config{})
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			conn := dialWS(t, srv, "/api/ws", nil)
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var want []string
			n := 0
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				n++
				line := sc.Text()
				switch {
				case strings.HasPrefix(line, "--> "):
					expectMessages(t, conn, want)
					want = nil
					if err := conn.Write(context.Background(), websocket.MessageText, []byte(line[4:])); err != nil {
						t.Fatalf("line %d: %v", n, err)
					}
				case strings.HasPrefix(line, "<-- "):
					want = append(want, line[4:])
				case line == "" || strings.HasPrefix(line, "#"):
				default:
					t.Fatalf("line %d: neither --> nor <--: %q", n, line)
				}
			}
			expectMessages(t, conn, want)
		})
	}
}

// expectMessages reads len(want) messages and matches each with the first expected message of
// the same id still unmatched.
func expectMessages(t *testing.T, conn *websocket.Conn, want []string) {
	t.Helper()
	for len(want) > 0 {
		got := readMsg(t, conn)
		i := slices.IndexFunc(want, func(w string) bool { return idOf(t, w) == got["id"] })
		if i < 0 {
			t.Fatalf("unexpected message %v; waiting for %v", got, want)
		}
		var w map[string]any
		if err := json.Unmarshal([]byte(want[i]), &w); err != nil {
			t.Fatalf("transcript message %s: %v", want[i], err)
		}
		if !reflect.DeepEqual(got, w) {
			t.Fatalf("got  %v\nwant %s", got, want[i])
		}
		want = append(want[:i:i], want[i+1:]...)
	}
}

func idOf(t *testing.T, msg string) any {
	var m map[string]any
	if err := json.Unmarshal([]byte(msg), &m); err != nil {
		t.Fatalf("transcript message %s: %v", msg, err)
	}
	return m["id"]
}
