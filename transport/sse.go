package transport

import (
	"io"

	"github.com/fnapi/fnapi/stream"
)

// sseFraming writes a stream as Server-Sent Events: one event per message, and a comment as
// keepalive.
type sseFraming struct{}

func (sseFraming) contentType() string { return stream.SSE }

// writeMessage writes msg as one event. Messages are compact JSON, one line each, so one data
// field holds a message.
func (sseFraming) writeMessage(w io.Writer, msg []byte) error {
	if _, err := io.WriteString(w, "data: "); err != nil {
		return err
	}
	if _, err := w.Write(msg); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n\n")
	return err
}

var sseKeepalive = []byte(": keepalive\n\n")

func (sseFraming) keepalive() []byte { return sseKeepalive }
