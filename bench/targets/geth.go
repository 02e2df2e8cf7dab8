package targets

import (
	"fmt"
	"net/http"

	"github.com/ethereum/go-ethereum/rpc"
)

// gethEcho is the go-ethereum service: its method Echo is called as echo_echo.
type gethEcho struct{}

type gethResult struct {
	A int    `json:"a"`
	B string `json:"b"`
}

// Echo answers its arguments.
func (gethEcho) Echo(a int, b string) gethResult { return gethResult{A: a, B: b} }

// gethHandler serves JSON-RPC over HTTP POST at / and over WebSocket at /ws.
func gethHandler() (http.Handler, error) {
	srv := rpc.NewServer()
	if err := srv.RegisterName("echo", gethEcho{}); err != nil {
		return nil, fmt.Errorf("targets: geth: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/ws", srv.WebsocketHandler([]string{"*"}))
	mux.Handle("/", srv)
	return mux, nil
}
