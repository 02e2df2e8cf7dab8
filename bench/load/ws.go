package load

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// WSConfig describes a WebSocket load run.
type WSConfig struct {
	// URL is the WebSocket endpoint (wss://...).
	URL string
	// HTTPClient dials the connection; set its TLS configuration to trust the server.
	HTTPClient *http.Client
	// InFlight is the number of calls kept in flight on the one connection.
	InFlight int
	// Duration is the length of the run.
	Duration time.Duration
	// AppendMessage appends the call message with the given id.
	AppendMessage func(dst []byte, id uint64) []byte
}

var resultKey = []byte(`"result":`)

// RunWS opens one connection to cfg.URL and keeps cfg.InFlight calls in flight on it for
// cfg.Duration: each answer frees its slot for the next call. Every call has its own id (the
// protocol wants ids unique per call), id mod InFlight being its slot. Answers that are not
// results count as errors.
func RunWS(ctx context.Context, cfg WSConfig) (Result, error) {
	n := cfg.InFlight
	if n <= 0 || cfg.Duration <= 0 || cfg.AppendMessage == nil {
		return Result{}, fmt.Errorf("load: ws: InFlight, Duration and AppendMessage are required")
	}
	conn, _, err := websocket.Dial(ctx, cfg.URL, &websocket.DialOptions{HTTPClient: cfg.HTTPClient})
	if err != nil {
		return Result{}, fmt.Errorf("load: ws: %w", err)
	}
	defer conn.CloseNow()
	conn.SetReadLimit(1 << 20)

	sent := make([]atomic.Int64, n) // send time of the call in flight in each slot
	ids := make([]atomic.Uint64, n) // id of the call in flight in each slot
	free := make(chan int, n)
	for i := range n {
		free <- i
	}
	cpu0 := selfCPU()
	start := time.Now()
	deadline := start.Add(cfg.Duration)

	// The reader owns calls, errs and lat until readDone is closed.
	var calls, errs int64
	lat := make([]time.Duration, 0, 1<<16)
	var readErr error
	readDone := make(chan struct{})
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		defer close(readDone)
		var buf bytes.Buffer
		for {
			_, r, err := conn.Reader(rctx)
			if err == nil {
				buf.Reset()
				_, err = buf.ReadFrom(r)
			}
			if err != nil {
				readErr = err
				return
			}
			now := time.Now()
			msg := buf.Bytes()
			id, ok := responseID(msg)
			slot := id % uint64(n)
			if !ok || ids[slot].Load() != id {
				readErr = fmt.Errorf("answer with no id of a call in flight: %q", msg)
				return
			}
			if !bytes.Contains(msg, resultKey) {
				errs++
			} else if now.Before(deadline) {
				calls++
				lat = append(lat, now.Sub(time.Unix(0, sent[slot].Load())))
			}
			free <- int(slot)
		}
	}()

	held := 0 // slots taken back once the run is over
	var msg []byte
	for seq := uint64(0); held == 0; seq++ {
		select {
		case slot := <-free:
			now := time.Now()
			if !now.Before(deadline) {
				held++
				break
			}
			id := seq*uint64(n) + uint64(slot)
			ids[slot].Store(id)
			sent[slot].Store(now.UnixNano())
			msg = cfg.AppendMessage(msg[:0], id)
			if err := conn.Write(ctx, websocket.MessageText, msg); err != nil {
				cancel()
				<-readDone
				return Result{}, fmt.Errorf("load: ws: %w", err)
			}
		case <-readDone:
			return Result{}, fmt.Errorf("load: ws: %w", readErr)
		}
	}
	// Wait for the calls still in flight, so the next run starts on a quiet server.
	drain := time.NewTimer(10 * time.Second)
	defer drain.Stop()
	for held < n {
		select {
		case <-free:
			held++
		case <-readDone:
			return Result{}, fmt.Errorf("load: ws: %w", readErr)
		case <-drain.C:
			return Result{}, fmt.Errorf("load: ws: %d calls unanswered 10 s after the run", n-held)
		}
	}
	loadCPU := selfCPU() - cpu0
	// The reader's error from here on is the close; it does not spoil the run.
	_ = conn.Close(websocket.StatusNormalClosure, "")
	cancel()
	<-readDone
	return Result{Calls: calls, Errors: errs, Elapsed: cfg.Duration,
		P50: percentile(lat, 50), P99: percentile(lat, 99), LoadCPU: loadCPU}, nil
}
