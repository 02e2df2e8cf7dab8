package targets

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/coder/websocket"
)

// Verify makes one echo call to t on the server at addr (host:port, TLS) and checks the
// answer. client must trust the server's certificate.
func (t Target) Verify(ctx context.Context, client *http.Client, addr string) error {
	var answer []byte
	var err error
	if t.Kind == WS {
		answer, err = t.callWS(ctx, client, "wss://"+addr+t.Path)
	} else {
		answer, err = t.callHTTP(ctx, client, "https://"+addr+t.Path)
	}
	if err != nil {
		return fmt.Errorf("targets: %s: %w", t.Name, err)
	}
	return t.Check(answer)
}

func (t Target) callHTTP(ctx context.Context, client *http.Client, url string) ([]byte, error) {
	method := http.MethodGet
	if t.Kind == POST {
		method = http.MethodPost
	}
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(t.Body))
	if err != nil {
		return nil, err
	}
	if t.ContentType != "" {
		req.Header.Set("Content-Type", t.ContentType)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d: %s", resp.StatusCode, answer)
	}
	return answer, nil
}

func (t Target) callWS(ctx context.Context, client *http.Client, url string) ([]byte, error) {
	conn, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPClient: client})
	if err != nil {
		return nil, err
	}
	defer conn.CloseNow()
	if err := conn.Write(ctx, websocket.MessageText, t.AppendMessage(nil, 0)); err != nil {
		return nil, err
	}
	_, answer, err := conn.Read(ctx)
	if err != nil {
		return nil, err
	}
	_ = conn.Close(websocket.StatusNormalClosure, "")
	return answer, nil
}
