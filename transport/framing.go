package transport

import (
	"io"
	"net/http"
	"strings"
)

// framing is how an HTTP stream puts its messages on the wire: one implementation per encoding
// (ndjson.go, sse.go) of stream.Encodings, whose media types are named in package stream. A
// new encoding is an entry there and here one file with a framing, listed in framings
// (TestFramingsMatchEncodings checks the two lists agree).
type framing interface {
	// contentType is the media type of the stream, which a client asks for in Accept.
	contentType() string
	// writeMessage writes one message: compact JSON on one line, without its newline.
	writeMessage(w io.Writer, msg []byte) error
	// keepalive is what the stream writes when it was idle for a while (checked every
	// WSConfig.PingInterval), so that proxies keep it open; nil for none.
	keepalive() []byte
}

// framings are the encodings a client may ask for in Accept, besides NDJSON, the default.
var framings = []framing{sseFraming{}}

// framingFor returns the framing the request accepts: the first of framings whose media type
// its Accept header names, else NDJSON.
func framingFor(r *http.Request) framing {
	for _, f := range framings {
		for _, v := range r.Header.Values("Accept") {
			if strings.Contains(v, f.contentType()) {
				return f
			}
		}
	}
	return ndjsonFraming{}
}
