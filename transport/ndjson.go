package transport

import (
	"io"

	"github.com/fnapi/fnapi/stream"
)

// ndjsonFraming writes a stream as NDJSON: one message per line. It has no keepalive: a client
// reading lines would take a blank line for a message.
type ndjsonFraming struct{}

func (ndjsonFraming) contentType() string { return stream.NDJSON }

func (ndjsonFraming) writeMessage(w io.Writer, msg []byte) error {
	if _, err := w.Write(msg); err != nil {
		return err
	}
	_, err := w.Write(newline)
	return err
}

func (ndjsonFraming) keepalive() []byte { return nil }
