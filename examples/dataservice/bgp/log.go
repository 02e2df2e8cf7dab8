package bgp

import (
	"context"
	"log/slog"
	"net/netip"
)

// gobgpLog is the handler of GoBGP's log: its warnings and errors go to the service's log, and
// its note of a connection from an address no peer group allows becomes the speaker's refusal
// (GoBGP has no other hook for it).
type gobgpLog struct {
	s     *Speaker
	next  slog.Handler
	attrs []slog.Attr
}

func (h *gobgpLog) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }

func (h *gobgpLog) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "Can't find configuration for a new passive connection" {
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "Key" {
				if addr, err := netip.ParseAddr(a.Value.String()); err == nil {
					h.s.refuse(addr.Unmap())
				}
				return false
			}
			return true
		})
		return nil
	}
	if r.Level < slog.LevelWarn || !h.next.Enabled(ctx, r.Level) {
		return nil
	}
	r.Message = "bgp: gobgp: " + r.Message
	r.AddAttrs(h.attrs...)
	return h.next.Handle(ctx, r)
}

func (h *gobgpLog) WithAttrs(as []slog.Attr) slog.Handler {
	return &gobgpLog{s: h.s, next: h.next, attrs: append(append([]slog.Attr(nil), h.attrs...), as...)}
}

func (h *gobgpLog) WithGroup(string) slog.Handler { return h }
