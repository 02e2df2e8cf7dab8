package stream

// Media types of a stream over HTTP: the encodings a client may ask for in its Accept header
// when it calls /stream/<fn>. Every message is one line of compact JSON; the encoding says how
// the lines are put on the wire.
const (
	// NDJSON is newline-delimited JSON, one message per line: the default.
	NDJSON = "application/x-ndjson"
	// SSE is Server-Sent Events, one message as the data of one event, with a comment line as
	// keepalive on an idle stream.
	SSE = "text/event-stream"
)

// An Encoding describes one media type a stream is sent in, for documents that list them (the
// OpenAPI document of package doc). The transport writes each with a framing of its own.
type Encoding struct {
	// MediaType is the Content-Type of the stream, which a client names in Accept.
	MediaType string
	// Messages says how the messages travel in it.
	Messages string
}

// Encodings returns the encodings of a stream, the default (NDJSON) first. Adding one is an
// entry here and a framing in package transport (framing.go), which its tests check.
func Encodings() []Encoding {
	return []Encoding{
		{MediaType: NDJSON, Messages: "One message per line."},
		{MediaType: SSE, Messages: "The same messages, each the data of one event. Sent with Accept: " + SSE + "."},
	}
}
