package transport

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/internal/calllink"
	"github.com/fnapi/fnapi/registry"
	"go.uber.org/zap"
)

// observe is the outermost interceptor: it logs one line per call (with the client's address,
// and the user, when the identity an interceptor set is a [fmt.Stringer]), records metrics, and turns
// every error into an *apierr.Error, logging the internals of INTERNAL-ERROR for the operator.
// Both lines carry the fields the inner interceptors added (registry.Call.AddLogFields).
func (h *Handler) observe(next registry.Handler) registry.Handler {
	log := h.cfg.Logger
	m := h.cfg.Metrics
	return func(ctx context.Context, c *registry.Call) (any, error) {
		start := time.Now()
		if m != nil {
			m.begin(c.Func.Name)
		}
		res, err := next(ctx, c)
		d := time.Since(start)
		var code apierr.Code
		if err != nil {
			e := apierr.From(err)
			code = e.Code()
			if code == apierr.Internal.Code() {
				log.Error("internal error", append([]zap.Field{zap.String("function", c.Func.Name), zap.Error(internalCause(err))}, calllink.Of(c).LogFields...)...)
			}
			err = e
		}
		if m != nil {
			m.end(c.Func.Name, code, d)
		}
		if ce := log.Check(zap.InfoLevel, "call"); ce != nil {
			fields := []zap.Field{
				zap.String("function", c.Func.Name),
				zap.Stringer("version", c.Version),
				zap.String("transport", c.Transport()),
				zap.Duration("duration", d),
				zap.String("code", string(code)),
			}
			if c.ID() != "" {
				fields = append(fields, zap.String("id", c.ID()))
			}
			fields = append(fields, zap.String("client", c.Client()))
			if u, ok := c.Identity.(fmt.Stringer); ok {
				fields = append(fields, zap.Stringer("user", u))
			}
			if c.Sink() != nil {
				fields = append(fields, zap.Bool("stream", true))
			}
			ce.Write(append(fields, calllink.Of(c).LogFields...)...)
		}
		return res, err
	}
}

// internalCause returns what to log of an internal error: its cause when it has one.
func internalCause(err error) error {
	var e *apierr.Error
	if errors.As(err, &e) && e.Unwrap() != nil {
		return e.Unwrap()
	}
	return err
}
