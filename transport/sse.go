package transport

import (
	"io"
	"time"
)

// writeEvent writes msg as one Server-Sent Event. Messages are compact JSON, one line each, so
// one data field holds a message.
func writeEvent(w io.Writer, msg []byte) error {
	if _, err := io.WriteString(w, "data: "); err != nil {
		return err
	}
	if _, err := w.Write(msg); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n\n")
	return err
}

// keepalive sends an SSE comment when nothing was written for an interval, so that proxies and
// browsers keep an idle stream open. It returns when the stream closes.
func (s *httpStream) keepalive(interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case now := <-t.C:
			s.mu.Lock()
			if !s.broken && now.Sub(s.wrote) >= interval/2 {
				s.deadline()
				if _, err := io.WriteString(s.w, ": keepalive\n\n"); err == nil && s.flush() == nil {
					s.wrote = now
				} else {
					s.broken = true
					s.cancel()
				}
			}
			s.mu.Unlock()
		}
	}
}
