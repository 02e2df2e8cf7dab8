package transport

import (
	"context"
	"net/http"
	"strings"

	"github.com/coder/websocket"
)

// WebSocket messages are compressed with permessage-deflate (RFC 7692) when the client offers
// it (browsers but Safari do) and WSConfig.CompressMinBytes is not negative: each message of at
// least CompressMinBytes, on its own, at BestSpeed. Smaller ones, echo's answer among them, go
// as they are: they would shrink by little for a compressor reset each.
//
// Without context takeover, both ways: a message is compressed without reference to the ones
// before, so the connection keeps no compression state between messages. With takeover, the
// library keeps a 1.2 MB compressor per connection that ever sent a compressed message and a
// 32 KB window for reading: a thousand connections, 1.2 GB. The compressors are pooled and held
// only while a message is compressed, and a reader of 40 KB while a compressed message is read
// (BENCHMARKS.md has what takeover would save). Without takeover, a secret cannot leak through
// the size of other messages either: the answers of registry.NoStore functions go uncompressed
// (writePlain), and no other message shares their compression.

// wsCompression is the mode offered; BenchmarkWSCompress compares it with takeover.
var wsCompression = websocket.CompressionNoContextTakeover

// wsAcceptOptions returns the handshake's options for cfg.
func wsAcceptOptions(cfg WSConfig) *websocket.AcceptOptions {
	o := &websocket.AcceptOptions{InsecureSkipVerify: true} // Origin checked by serveWS
	if cfg.CompressMinBytes >= 0 {
		o.CompressionMode = wsCompression
		o.CompressionThreshold = cfg.CompressMinBytes
	}
	return o
}

// plainMin is the size from which a message that must stay uncompressed needs writePlain on
// the connection w answered the handshake of: CompressMinBytes when the handshake negotiated
// permessage-deflate, else 0 (every message goes as it is).
func plainMin(w http.ResponseWriter, cfg WSConfig) int {
	if cfg.CompressMinBytes < 0 || !strings.Contains(w.Header().Get("Sec-WebSocket-Extensions"), "permessage-deflate") {
		return 0
	}
	return cfg.CompressMinBytes
}

// writePlain writes p as one message, uncompressed whatever its size: the library compresses a
// message when its first write reaches the threshold, so an empty first frame keeps the
// message plain, and p follows in a continuation frame.
func writePlain(conn *websocket.Conn, p []byte) error {
	w, err := conn.Writer(context.Background(), websocket.MessageText)
	if err != nil {
		return err
	}
	if _, err := w.Write(nil); err != nil {
		return err
	}
	if _, err := w.Write(p); err != nil {
		return err
	}
	return w.Close()
}
